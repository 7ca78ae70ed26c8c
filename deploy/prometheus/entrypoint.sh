#!/bin/sh
# Starts Prometheus with the apps' METRICS_TOKEN in the file prometheus.yml reads it from:
# Prometheus reads no environment in its configuration. The arguments are Prometheus's flags.
set -eu
if [ -z "${METRICS_TOKEN:-}" ]; then
  echo "set METRICS_TOKEN (at least 16 characters): the apps show /metrics only to it, and Prometheus sends it" >&2
  exit 1
fi
umask 077
printf '%s' "$METRICS_TOKEN" > /etc/prometheus/metrics-token
exec /bin/prometheus "$@"
