// The trailing `change` the directory watcher sends after every burst of
// add/change events on a file, shortly after its last event (kept from the
// chokidar days): a safety net should the platform merge or drop an event of
// a write racing the read that the previous event started. A one-shot timer
// per burst, not a polling loop: an idle daemon uses no CPU.
export class TrailingChanges {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly delayMs: number,
    private readonly onDue: (path: string) => void,
  ) {}

  /** Restarted on every event: the check lands after the burst is over. */
  schedule(path: string): void {
    const pending = this.timers.get(path);
    if (pending !== undefined) clearTimeout(pending);
    this.timers.set(
      path,
      setTimeout(() => {
        this.timers.delete(path);
        this.onDue(path);
      }, this.delayMs),
    );
  }

  cancelAll(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
