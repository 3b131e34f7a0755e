#!/usr/bin/env bash
# A throwaway PostgreSQL cluster on loopback for tests and benchmarks: initdb in a temp dir, its own port and
# socket dir, trust auth for the local `dragoman` superuser, torn down by `stop`. Uses Debian's binaries
# (apt-get install postgresql). initdb refuses to run as root, so as root every server command runs as the
# `postgres` user (created by the Debian package) through runuser.
#
#   scripts/pg-test-cluster.sh start [DIR]   prints shell exports: PGTEST_DIR, PGTEST_PORT, DRAGOMAN_TEST_DATABASE_URL
#   scripts/pg-test-cluster.sh stop DIR      stops the server and deletes DIR
#   scripts/pg-test-cluster.sh pause DIR     stops the server, keeps the data (fault tests)
#   scripts/pg-test-cluster.sh resume DIR    starts it again on the same port
#   scripts/pg-test-cluster.sh run -- CMD…   start, run CMD with DRAGOMAN_TEST_DATABASE_URL set, stop
set -euo pipefail

PGBIN="${PGBIN:-}"
if [ -z "$PGBIN" ]; then
  for d in /usr/lib/postgresql/*/bin; do [ -x "$d/initdb" ] && PGBIN="$d"; done
fi
if [ -z "$PGBIN" ] || [ ! -x "$PGBIN/initdb" ]; then
  echo "pg-test-cluster: no PostgreSQL server binaries (apt-get install -y postgresql)" >&2
  exit 3
fi

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

start_server() {
  local dir=$1 port
  port=$(cat "$dir/port")
  as_owner "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
    -o "-p $port -k $dir/sock -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=on" start >/dev/null
}

cmd=${1:-}
case "$cmd" in
  start)
    dir=${2:-$(mktemp -d /tmp/dragoman-pg.XXXXXX)}
    mkdir -p "$dir/sock"
    [ "$(id -u)" = 0 ] && chown -R postgres: "$dir"
    as_owner "$PGBIN/initdb" -D "$dir/data" -U dragoman --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
      { cat "$dir/initdb.log" >&2; exit 1; }
    free_port >"$dir/port"
    [ "$(id -u)" = 0 ] && chown postgres: "$dir/port"
    start_server "$dir"
    port=$(cat "$dir/port")
    "$PGBIN/createdb" -h 127.0.0.1 -p "$port" -U dragoman dragoman_test
    echo "export PGTEST_DIR=$dir PGTEST_PORT=$port"
    echo "export DRAGOMAN_TEST_DATABASE_URL=postgres://dragoman@127.0.0.1:$port/dragoman_test"
    ;;
  stop)
    dir=${2:?usage: stop DIR}
    as_owner "$PGBIN/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$dir"
    ;;
  pause)
    dir=${2:?usage: pause DIR}
    as_owner "$PGBIN/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    ;;
  resume)
    dir=${2:?usage: resume DIR}
    start_server "$dir"
    ;;
  run)
    shift
    [ "${1:-}" = "--" ] && shift
    eval "$("$0" start)"
    trap '"$0" stop "$PGTEST_DIR"' EXIT
    export DRAGOMAN_TEST_DATABASE_URL
    "$@"
    ;;
  *)
    sed -n '2,13p' "$0" >&2
    exit 2
    ;;
esac
