/**
 * Preloaded (`--expose-gc --import`) into the processes whose memory bench/chat measures: SIGUSR2
 * runs a full garbage collection, so that resident memory is read without the garbage of the moment.
 */
process.on('SIGUSR2', () => (globalThis as { gc?: () => void }).gc?.());
