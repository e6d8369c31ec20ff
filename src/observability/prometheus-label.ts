/**
 * Escapes a label value as the Prometheus text exposition format (version 0.0.4) requires:
 * `\`, `"` and newlines. Metrics are written by hand; a metrics library would be the largest
 * dependency of the components that expose them.
 */
export function prometheusLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
