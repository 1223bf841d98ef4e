"""Rule `fit_eval`: repetitions of one (dataset, setting, method), as Dask tasks when the
job has more than one thread or a scheduler address, else one after another in-process.

The body is guarded by ``__name__ == "__main__"``: Dask's worker processes are spawned
and re-import the main module (as ``__mp_main__``), which must not run the job again.
"""
def main(smk):
    from pu_lib._io import write_parquet_atomic
    from pu_lib._logging import log_to_file
    from pu_lib.distributed import dask_client, exit_with_parent, peak_rss_mb, worker_peak_rss_mb
    from pu_lib.workflow.experiments.runner import fit_eval

    log = log_to_file(smk.log[0])
    exit_with_parent()  # a killed Snakemake takes this job and its Dask workers with it
    # the code hash (a rule param) goes into the result rows; jobs of an older DAG have none
    spec = {**smk.params.spec, "code_hash": getattr(smk.params, "code_hash", None)}
    data = smk.input.data[0] if len(smk.input.data) else None
    if smk.threads == 1 and not smk.params.scheduler_address:
        # one core and no external scheduler: nothing to distribute, so the repetitions run
        # one after another in this process (a LocalCluster of one worker would cost about
        # 0.6 s per job to import and start; the results are the same, see docs/workflow.md)
        log.info("one thread, no scheduler address: repetitions run in the job's process")
        df = fit_eval(spec, data, smk.input.labels, client=None)
        log.info("peak resident memory (MB): %d", round(peak_rss_mb()))
    else:
        with dask_client(
            threads=smk.threads,
            mem_mb=smk.resources.mem_mb,
            scheduler_address=smk.params.scheduler_address,
            processes=smk.params.processes,
        ) as client:
            log.info("dask client: %s", client)
            df = fit_eval(spec, data, smk.input.labels, client=client)
            peaks = {addr: round(mb) for addr, mb in worker_peak_rss_mb(client).items()}
            log.info("peak resident memory per worker (MB): %s", peaks)
    write_parquet_atomic(df, smk.output[0])
    log.info("wrote %d result rows to %s", len(df), smk.output[0])


if __name__ == "__main__":
    main(snakemake)  # noqa: F821
