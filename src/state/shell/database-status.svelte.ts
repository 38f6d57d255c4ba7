/**
 * What the window knows about its IndexedDB connection: another tab opened a newer schema (this
 * tab's connection is closed and must reload), or this tab's upgrade waits for older tabs.
 */
export class DatabaseStatus {
  isOutdated = $state(false);
  isBlocked = $state(false);

  markOutdated(): void {
    this.isOutdated = true;
  }

  markBlocked(): void {
    this.isBlocked = true;
  }
}
