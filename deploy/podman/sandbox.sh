#!/usr/bin/env bash
# Source this before podman/buildah/podman-compose on a machine that runs them inside a
# sandbox (a VM without systemd, a CI runner): it writes a containers.conf for this shell
# (CONTAINERS_CONF) that
#  * uses runc: crun refuses hybrid cgroup v1/v2 hierarchies ("cgroups in hybrid mode not
#    supported, drop all controllers from cgroupv2");
#  * sets each container's open-files and process limits no higher than this shell's own:
#    podman's defaults (1048576) are above what an unprivileged sandbox may grant, and crun/runc
#    then stop with "setrlimit RLIMIT_NOFILE: Operation not permitted".
# A normal Docker or podman host needs none of this.
_colmeia_conf="$(mktemp -t colmeia-containers.XXXXXX.conf)"
_colmeia_files="$(ulimit -Hn)"
[[ "$_colmeia_files" == unlimited ]] && _colmeia_files=65536
cat >"$_colmeia_conf" <<CONF
[containers]
default_ulimits = ["nofile=${_colmeia_files}:${_colmeia_files}", "nproc=8192:8192"]

[engine]
runtime = "runc"
CONF
export CONTAINERS_CONF="$_colmeia_conf"
unset _colmeia_conf _colmeia_files
