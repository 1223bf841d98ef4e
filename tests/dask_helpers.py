"""Test helper for Dask by explicit choice (docs/cluster.md): did anything run on the
scheduler?"""


def scheduler_tasks(client) -> int:
    """How many tasks the scheduler has ever sent to a worker (each task prefix counts its
    tasks' transitions into every state, forgotten tasks included)."""
    return client.run_on_scheduler(
        lambda dask_scheduler: sum(p.state_counts.get("processing", 0) for p in dask_scheduler.task_prefixes.values()))
