#!/usr/bin/env bash
# A private, throwaway PostgreSQL cluster for tests and benchmarks.
#   scripts/postgres/cluster.sh start DIR   initdb into DIR/data, start on a free loopback port,
#                                           print the server's URL (postgresql://tally@127.0.0.1:PORT/postgres)
#   scripts/postgres/cluster.sh stop DIR    stop it (immediate) and remove DIR
#   scripts/postgres/cluster.sh kill DIR    SIGKILL the server (a crash: no shutdown checkpoint)
#   scripts/postgres/cluster.sh restart DIR start it again on the same port (crash recovery runs)
# PostgreSQL refuses to run as root: as root, the cluster runs as the `postgres` user.
set -euo pipefail
command=${1:?usage: cluster.sh start|stop|kill|restart DIR}
dir=${2:?usage: cluster.sh start|stop|kill|restart DIR}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$bin" ] || { echo "cluster.sh: PostgreSQL is not installed (run scripts/setup.sh)" >&2; exit 1; }
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
case "$command" in
start)
    mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres "$dir"
    as_owner "$bin/initdb" -D "$dir/data" -U tally --auth=trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    for attempt in 1 2 3 4 5 6 7 8; do
        port=$(( 20000 + (RANDOM * 32768 + RANDOM) % 40000 ))
        if as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
            -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300 -c shared_buffers=128MB" start >/dev/null 2>&1; then
            echo "postgresql://tally@127.0.0.1:$port/postgres" >"$dir/url"
            cat "$dir/url"
            exit 0
        fi
    done
    cat "$dir/server.log" >&2
    exit 1
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
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300 -c shared_buffers=128MB" start >/dev/null 2>&1 \
        || { tail -20 "$dir/server.log" >&2; exit 1; }
    ;;
stop)
    if [ -d "$dir/data" ]; then as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true; fi
    rm -rf "$dir"
    ;;
*)
    echo "usage: cluster.sh start|stop|kill|restart DIR" >&2
    exit 2
    ;;
esac
