/**
 * Time as the UI reads it. Every timer in the app (event batching, key confirmations,
 * wake-on-complete, the elapsed-time tick) goes through one, so tests drive a fake. The core's
 * clock (platform/timers.ts): one shape everywhere.
 */
export { type Clock, realClock } from '../core/index.js';
