#!/bin/sh
# Starts Prometheus with the apps' METRICS_TOKEN in the file prometheus.yml reads it from:
# Prometheus reads no environment in its configuration. The arguments are Prometheus's flags.
set -eu
if [ -z "${METRICS_TOKEN:-}" ]; then
  echo "set METRICS_TOKEN (at least 16 characters): the apps show /metrics only to it, and Prometheus sends it" >&2
  # A refusal is final: exit 0, so that compose's `restart: on-failure` leaves the container stopped instead of
  # repeating the line, while a crash of Prometheus itself (non-zero) is restarted.
  exit 0
fi
umask 077
printf '%s' "$METRICS_TOKEN" > /etc/prometheus/metrics-token
exec /bin/prometheus "$@"
