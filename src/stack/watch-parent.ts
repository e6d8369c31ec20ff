// Preloaded into every component the launcher starts (`node -r …/watch-parent`). The
// launcher talks to its children over an IPC channel; when the launcher is gone — Ctrl+C,
// SIGTERM, a crash or SIGKILL — the channel closes and the component shuts down as it does
// on SIGTERM, instead of living on with its port taken.
if (process.send) {
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  // The channel alone must not keep a component alive once its servers have closed.
  process.channel?.unref();
}

export {};
