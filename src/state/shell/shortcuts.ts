/** The app's keyboard shortcuts: one table for the handler and the shortcuts sheet. */

export type ShortcutAction = 'search' | 'new_chat' | 'temporary_chat' | 'stop' | 'edit_last' | 'show_shortcuts';

export interface Shortcut {
  action: ShortcutAction;
  /** As shown in the sheet; "Mod" is Ctrl, or ⌘ on Apple devices. */
  keys: string;
  description: string;
}

export const SHORTCUTS: readonly Shortcut[] = [
  { action: 'search', keys: 'Mod+K', description: 'Search chats' },
  { action: 'new_chat', keys: 'Mod+Shift+O', description: 'New chat' },
  { action: 'temporary_chat', keys: 'Mod+Shift+E', description: 'New temporary chat (never saved unless you save it)' },
  { action: 'stop', keys: 'Esc', description: 'Stop the answer' },
  { action: 'edit_last', keys: '↑', description: 'Edit your last message (in an empty composer)' },
  { action: 'show_shortcuts', keys: '?', description: 'Show keyboard shortcuts' },
];

/** What the handler needs of a keydown event (a plain object in tests). */
export interface KeyPress {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
  /** Focus is in a text field: typing "?" there is text, not a shortcut. */
  isTyping: boolean;
  /** The focused field is the composer and it is empty. */
  isComposerEmpty: boolean;
}

/** Maps a key press to its action, or null when it is not a shortcut here. */
export function matchShortcut(press: KeyPress): ShortcutAction | null {
  const isMod = press.ctrlKey || press.metaKey;
  const key = press.key.toLowerCase();
  if (isMod && !press.shiftKey && !press.altKey && key === 'k') return 'search';
  if (isMod && press.shiftKey && !press.altKey && key === 'o') return 'new_chat';
  if (isMod && press.shiftKey && !press.altKey && key === 'e') return 'temporary_chat';
  if (isMod || press.altKey) return null;
  if (press.key === 'Escape') return 'stop';
  if (press.key === 'ArrowUp' && press.isComposerEmpty) return 'edit_last';
  if (press.key === '?' && !press.isTyping) return 'show_shortcuts';
  return null;
}

/** "Mod" spelled for this device. */
export function formatKeys(keys: string, isApple: boolean): string {
  return keys.replace('Mod', isApple ? '⌘' : 'Ctrl');
}
