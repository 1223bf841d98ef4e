#!/usr/bin/env bash
# A one-node SLURM cluster on this machine, to try the SLURM profile without a real cluster.
#
#   sudo config/profiles/slurm/local_cluster.sh up       # install (apt-get) if needed, start
#   sudo config/profiles/slurm/local_cluster.sh status   # exit 0 when the node takes jobs
#   sudo config/profiles/slurm/local_cluster.sh down     # stop the daemons this script started
#
# Root is needed (apt-get, /etc/slurm, daemons). Works in containers without systemd: the
# daemons are started directly. What `up` does:
#   - apt-get install slurm-wlm munge when slurmctld / munged are missing;
#   - writes /etc/slurm/slurm.conf (refuses to overwrite one that this script did not write):
#     one node named after `hostname -s` at 127.0.0.1 with the CPUs and memory that
#     `slurmd -C` reports, partition `debug` (Default=YES), no accounting database
#     (Snakemake's SLURM plugin then needs `--slurm-status-command squeue` and
#     `--slurm-no-account`; MinJobAge=3600 keeps finished jobs visible to squeue);
#   - creates the munge key if missing and starts munged as the munge user (unless a
#     munged already answers);
#   - starts slurmctld and slurmd with a fresh state and waits until sinfo shows the node idle.
# State, logs and pid files live in /var/lib/pu_lib-slurm, /var/log/pu_lib-slurm and
# /run/pu_lib-slurm. Environment: PU_LIB_SLURM_TIMEOUT (seconds to wait for the node, 60).
set -euo pipefail
export PATH="$PATH:/usr/sbin:/sbin"   # slurmctld, slurmd, munged

CONF=/etc/slurm/slurm.conf
MARK="# written by pu_lib config/profiles/slurm/local_cluster.sh"
STATE=/var/lib/pu_lib-slurm
LOGS=/var/log/pu_lib-slurm
RUN=/run/pu_lib-slurm
PARTITION=debug
TIMEOUT=${PU_LIB_SLURM_TIMEOUT:-60}

die() { echo "local_cluster.sh: $*" >&2; exit 1; }
say() { echo "local_cluster.sh: $*"; }

need_root() { [ "$(id -u)" = 0 ] || die "must run as root (apt-get, /etc/slurm, daemons)"; }

node_name() { hostname -s; }

install_packages() {
    if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sbatch >/dev/null \
        && command -v munged >/dev/null; then
        return
    fi
    command -v apt-get >/dev/null || die "slurmctld/slurmd/munged missing and no apt-get to install slurm-wlm munge"
    say "installing slurm-wlm munge (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y -q slurm-wlm munge >/dev/null 2>&1; then
        apt-get update -q >/dev/null
        apt-get install -y -q slurm-wlm munge >/dev/null
    fi
}

pid_alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

munge_ok() { munge -n 2>/dev/null | unmunge >/dev/null 2>&1; }

start_munge() {
    if munge_ok; then
        say "munged already running"
        return
    fi
    install -d -o munge -g munge -m 0700 /etc/munge /var/log/munge
    install -d -o munge -g munge -m 0711 /var/lib/munge
    install -d -o munge -g munge -m 0755 /run/munge
    if [ ! -s /etc/munge/munge.key ]; then
        say "creating /etc/munge/munge.key"
        if command -v mungekey >/dev/null; then
            mungekey --create --keyfile=/etc/munge/munge.key
        else
            dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
        fi
    fi
    chown munge:munge /etc/munge/munge.key
    chmod 0400 /etc/munge/munge.key
    if command -v runuser >/dev/null; then
        runuser -u munge -- munged
    else
        setpriv --reuid=munge --regid=munge --init-groups munged
    fi
    touch "$RUN/munged.ours"
    for _ in $(seq 50); do munge_ok && return; sleep 0.1; done
    die "munged started but munge -n | unmunge fails (see /var/log/munge/munged.log)"
}

write_conf() {
    local node hw cpus mem
    node=$(node_name)
    [ -n "$node" ] || die "hostname -s is empty"
    if [ -e "$CONF" ] && ! grep -qF "$MARK" "$CONF"; then
        die "$CONF exists and was not written by this script; not overwriting a real cluster's config"
    fi
    # The hardware line slurmd sees (CPUs, sockets, cores, threads, RealMemory), without its node name.
    hw=$(slurmd -C | head -n 1 | tr ' ' '\n' | grep -E '^(CPUs|Boards|SocketsPerBoard|CoresPerSocket|ThreadsPerCore)=' | tr '\n' ' ')
    mem=$(slurmd -C | head -n 1 | tr ' ' '\n' | sed -n 's/^RealMemory=//p')
    cpus=$(echo "$hw" | tr ' ' '\n' | sed -n 's/^CPUs=//p')
    [ -n "$cpus" ] && [ -n "$mem" ] || die "could not read CPUs / RealMemory from slurmd -C"
    mem=$((mem * 95 / 100))   # a margin, so that the node never registers with "Low RealMemory"
    install -d -m 0755 /etc/slurm
    cat >"$CONF" <<EOF
$MARK
# One node on this machine (see that script); 'down' stops the daemons, 'up' rewrites this file.
ClusterName=pu_lib_local
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
MailProg=/bin/true
SwitchType=switch/none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1000
ReturnToService=2
MinJobAge=3600
InactiveLimit=0
KillWait=10
SlurmctldTimeout=60
SlurmdTimeout=300
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/d
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd.pid
SlurmctldLogFile=$LOGS/slurmctld.log
SlurmdLogFile=$LOGS/slurmd.log
NodeName=$node NodeHostname=$node NodeAddr=127.0.0.1 ${hw}RealMemory=$mem State=UNKNOWN
PartitionName=$PARTITION Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
    say "wrote $CONF (node $node: $cpus CPUs, $mem MB)"
}

node_state() { { sinfo -h -N -n "$(node_name)" -o %T 2>/dev/null || true; } | head -n 1; }

is_up() {
    pid_alive "$RUN/slurmctld.pid" && pid_alive "$RUN/slurmd.pid" || return 1
    case "$(node_state)" in
        idle | mixed | allocated | completing) return 0 ;;
        *) return 1 ;;
    esac
}

show_logs() {
    for f in "$LOGS/slurmctld.log" "$LOGS/slurmd.log" /var/log/munge/munged.log; do
        [ -s "$f" ] && { echo "--- tail of $f" >&2; tail -n 15 "$f" >&2; }
    done
    return 0
}

up() {
    need_root
    install -d -m 0755 "$RUN" "$LOGS"
    if [ -e "$CONF" ] && grep -qF "$MARK" "$CONF" && is_up; then
        say "already up: $(sinfo -h -N -o '%N %T %c CPUs %m MB, partition %P')"
        return
    fi
    install_packages
    start_munge
    stop_slurm
    write_conf
    rm -rf "$STATE"
    install -d -m 0755 "$STATE/ctld" "$STATE/d"
    : >"$LOGS/slurmctld.log"
    : >"$LOGS/slurmd.log"
    slurmctld || { show_logs; die "slurmctld did not start"; }
    slurmd -N "$(node_name)" || { show_logs; die "slurmd did not start"; }
    local state=""
    for _ in $(seq $((TIMEOUT * 2))); do
        state=$(node_state)
        case "$state" in idle | mixed | allocated) break ;; esac
        sleep 0.5
    done
    if [ "$state" != idle ] && [ "$state" != mixed ] && [ "$state" != allocated ]; then
        show_logs
        sinfo -N -l >&2 || true
        die "node $(node_name) not idle after ${TIMEOUT}s (state: '${state:-none}')"
    fi
    say "up: $(sinfo -h -N -o '%N %T %c CPUs %m MB, partition %P')"
    say "try: snakemake --profile config/profiles/slurm --slurm-no-account --slurm-status-command squeue"
}

stop_pidfile() {  # stop_pidfile FILE NAME: SIGTERM the pid in FILE and wait until it is gone
    local f=$1 name=$2 pid
    pid_alive "$f" || { rm -f "$f"; return 0; }
    pid=$(cat "$f")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then
        kill -9 "$pid" 2>/dev/null || true
    fi
    rm -f "$f"
    say "stopped $name (pid $pid)"
}

stop_slurm() {
    if pid_alive "$RUN/slurmctld.pid" && command -v squeue >/dev/null; then
        # Jobs still running would outlive slurmd (slurmstepd is its own process): cancel them.
        local jobs
        jobs=$(squeue -h -t PD,R,CG,S -o %i 2>/dev/null || true)
        if [ -n "$jobs" ]; then
            say "cancelling jobs: $(echo $jobs)"
            # shellcheck disable=SC2086
            scancel $jobs 2>/dev/null || true
            for _ in $(seq 30); do
                [ -z "$(squeue -h -t PD,R,CG,S -o %i 2>/dev/null)" ] && break
                sleep 0.5
            done
        fi
    fi
    stop_pidfile "$RUN/slurmd.pid" slurmd
    stop_pidfile "$RUN/slurmctld.pid" slurmctld
}

down() {
    need_root
    stop_slurm
    if [ -e "$RUN/munged.ours" ]; then
        stop_pidfile /run/munge/munged.pid munged
        rm -f "$RUN/munged.ours"
    fi
    say "down"
}

status() {
    if is_up; then
        say "up: $(sinfo -h -N -o '%N %T %c CPUs %m MB, partition %P')"
        return 0
    fi
    local c=stopped d=stopped
    pid_alive "$RUN/slurmctld.pid" && c="running"
    pid_alive "$RUN/slurmd.pid" && d="running"
    say "not up (slurmctld $c, slurmd $d, node state '$(node_state || true)')"
    return 1
}

case "${1:-}" in
    up) up ;;
    down) down ;;
    status) status ;;
    *) echo "usage: $0 up|down|status" >&2; exit 2 ;;
esac
