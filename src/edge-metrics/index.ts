export { edgeMetrics } from './edge-metrics';
