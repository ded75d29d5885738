#!/usr/bin/env bash
# A private, throwaway PostgreSQL cluster for tests and benchmarks.
#   scripts/postgres/cluster.sh start DIR   initdb into DIR/data, start on a free loopback port,
#                                           print the server's URL (postgresql://tally@127.0.0.1:PORT/postgres)
#   scripts/postgres/cluster.sh stop DIR    stop it (immediate) and remove DIR
#   scripts/postgres/cluster.sh kill DIR    SIGKILL the server (a crash: no shutdown checkpoint)
#   scripts/postgres/cluster.sh restart DIR start it again on the same port (crash recovery runs)
#   scripts/postgres/cluster.sh standby PRIMARY_DIR STANDBY_DIR
#                                           a streaming standby of the cluster in PRIMARY_DIR (pg_basebackup -R),
#                                           started on a free port; the primary then waits for it at every
#                                           commit (synchronous_standby_names). Prints the standby's URL.
#   scripts/postgres/cluster.sh promote DIR make a standby the primary (pg_ctl promote)
# PostgreSQL refuses to run as root: as root, the cluster runs as the `postgres` user.
set -euo pipefail
usage="usage: cluster.sh start|stop|kill|restart|promote DIR, or cluster.sh standby PRIMARY_DIR STANDBY_DIR"
command=${1:?$usage}
dir=${2:?$usage}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$bin" ] || { echo "cluster.sh: PostgreSQL is not installed (run scripts/setup.sh)" >&2; exit 1; }
# A server started here must not hold what its caller had open: a test process's pipe to
# another child would never reach its end while the server lives. Close every descriptor but
# the standard three (and 255, bash's own hold on this script).
for fd in $(ls /proc/$$/fd 2>/dev/null); do
    if [ "$fd" -gt 2 ] && [ "$fd" -ne 255 ]; then eval "exec $fd>&-" 2>/dev/null || true; fi
done
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
options="-c listen_addresses=127.0.0.1 -c max_connections=300 -c shared_buffers=128MB"
# Starts the cluster in $dir/data on a free loopback port and writes its URL to $dir/url.
start_on_free_port() {
    for attempt in 1 2 3 4 5 6 7 8; do
        port=$(( 20000 + (RANDOM * 32768 + RANDOM) % 40000 ))
        if as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
            -o "-p $port -k $dir $options" start >/dev/null 2>&1; then
            echo "postgresql://tally@127.0.0.1:$port/postgres" >"$dir/url"
            cat "$dir/url"
            return 0
        fi
    done
    cat "$dir/server.log" >&2
    return 1
}
case "$command" in
standby)
    primary=$dir
    dir=${3:?$usage}
    primary_port=$(sed -E 's|.*:([0-9]+)/.*|\1|' "$primary/url")
    mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres "$dir"
    # initdb's pg_hba.conf (--auth=trust) already lets loopback connections replicate; the default
    # wal_level (replica) and max_wal_senders (10) are what streaming needs.
    as_owner "$bin/pg_basebackup" -h 127.0.0.1 -p "$primary_port" -U tally -D "$dir/data" -R -X stream -c fast \
        >"$dir/basebackup.log" 2>&1 || { cat "$dir/basebackup.log" >&2; exit 1; }
    # The name the primary waits for (the walreceiver's application_name).
    echo "primary_conninfo = 'host=127.0.0.1 port=$primary_port user=tally application_name=tally_standby'" \
        | as_owner tee -a "$dir/data/postgresql.auto.conf" >/dev/null
    start_on_free_port || exit 1
    primary_url=$(cat "$primary/url")
    "${bin}/psql" "$primary_url" -X -q -v ON_ERROR_STOP=1 \
        -c "ALTER SYSTEM SET synchronous_standby_names = 'tally_standby'" -c "SELECT pg_reload_conf()" >/dev/null
    for attempt in $(seq 1 200); do
        state=$("${bin}/psql" "$primary_url" -X -A -t -c "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'tally_standby'" 2>/dev/null || true)
        [ "$state" = "sync" ] && exit 0
        sleep 0.05
    done
    echo "cluster.sh: the standby in $dir did not become synchronous" >&2
    tail -20 "$dir/server.log" >&2
    exit 1
    ;;
promote)
    as_owner "$bin/pg_ctl" -D "$dir/data" -w -t 60 promote >/dev/null 2>&1 || { tail -20 "$dir/server.log" >&2; exit 1; }
    ;;
start)
    mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres "$dir"
    as_owner "$bin/initdb" -D "$dir/data" -U tally --auth=trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    start_on_free_port || exit 1
    ;;
kill)
    pid=$(head -1 "$dir/data/postmaster.pid" 2>/dev/null || true)
    [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null || true
    # The server's children end when they find the postmaster gone; wait for the port to close.
    for attempt in $(seq 1 100); do
        pgrep -f -- "-D $dir/data" >/dev/null 2>&1 || break
        sleep 0.05
    done
    pkill -KILL -f -- "-D $dir/data" 2>/dev/null || true
    ;;
restart)
    port=$(sed -E 's|.*:([0-9]+)/.*|\1|' "$dir/url")
    # A killed server's lock files name its pid, which may linger as a zombie where nothing
    # reaps orphans (a container's init): the server is known dead, so they go.
    rm -f "$dir/data/postmaster.pid" "$dir/.s.PGSQL.$port.lock"
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-p $port -k $dir $options" start >/dev/null 2>&1 \
        || { tail -20 "$dir/server.log" >&2; exit 1; }
    ;;
stop)
    if [ -d "$dir/data" ]; then as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true; fi
    rm -rf "$dir"
    ;;
*)
    echo "$usage" >&2
    exit 2
    ;;
esac
