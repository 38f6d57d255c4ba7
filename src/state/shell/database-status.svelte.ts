/**
 * What the window knows about its IndexedDB connection: another tab opened a newer schema (this
 * tab's connection is closed and must reload), this tab's upgrade waits for older tabs, or a
 * backup import (in any tab) is still writing or being undone, so what shows may be partial.
 */
export class DatabaseStatus {
  isOutdated = $state(false);
  isBlocked = $state(false);
  isImportUnderway = $state(false);

  setImportUnderway(isUnderway: boolean): void {
    this.isImportUnderway = isUnderway;
  }

  markOutdated(): void {
    this.isOutdated = true;
  }

  markBlocked(): void {
    this.isBlocked = true;
  }
}
