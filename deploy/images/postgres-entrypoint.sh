#!/bin/sh
# First start: a cluster whose superuser is POSTGRES_USER (password POSTGRES_PASSWORD) with the
# database POSTGRES_DB, reachable over TCP with a password. Then: the server in the foreground.
set -eu
: "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}" "${PGPORT:=5432}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo "POSTGRES_PASSWORD is not set: refusing to create a cluster without a password" >&2
    exit 1
  fi
  pwfile="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb --username="$POSTGRES_USER" --pwfile="$pwfile" --auth-local=trust \
    --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  if [ "$POSTGRES_DB" != postgres ]; then
    echo "CREATE DATABASE \"$POSTGRES_DB\";" | postgres --single -D "$PGDATA" postgres >/dev/null
  fi
fi
exec postgres -D "$PGDATA" -p "$PGPORT" -c listen_addresses="${POSTGRES_LISTEN:-*}" "$@"
