import { describe, expect, it } from 'vitest';
import { formatKeys, matchShortcut, SHORTCUTS, type KeyPress } from '../../../../src/state/shell/shortcuts';

const press = (key: string, extra: Partial<KeyPress> = {}): KeyPress => ({
  key,
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  altKey: false,
  isTyping: false,
  isComposerEmpty: false,
  ...extra,
});

describe('matchShortcut', () => {
  it('opens search with Ctrl+K or Cmd+K, even while typing', () => {
    expect(matchShortcut(press('k', { ctrlKey: true, isTyping: true }))).toBe('search');
    expect(matchShortcut(press('K', { metaKey: true }))).toBe('search');
  });
  it('starts a new chat with Ctrl/Cmd+Shift+O but not with Ctrl+O', () => {
    expect(matchShortcut(press('O', { ctrlKey: true, shiftKey: true }))).toBe('new_chat');
    expect(matchShortcut(press('o', { ctrlKey: true }))).toBeNull();
  });
  it('starts a temporary chat with Ctrl/Cmd+Shift+E but not while Alt is held', () => {
    expect(matchShortcut(press('E', { ctrlKey: true, shiftKey: true, isTyping: true }))).toBe('temporary_chat');
    expect(matchShortcut(press('E', { metaKey: true, shiftKey: true, altKey: true }))).toBeNull();
  });
  it('edits the last message with ↑ only in an empty composer', () => {
    expect(matchShortcut(press('ArrowUp', { isTyping: true, isComposerEmpty: true }))).toBe('edit_last');
    expect(matchShortcut(press('ArrowUp', { isTyping: true }))).toBeNull();
  });
  it('treats ? as text while typing and as the shortcuts sheet otherwise', () => {
    expect(matchShortcut(press('?', { shiftKey: true }))).toBe('show_shortcuts');
    expect(matchShortcut(press('?', { shiftKey: true, isTyping: true }))).toBeNull();
  });
  it('stops with Escape', () => {
    expect(matchShortcut(press('Escape', { isTyping: true }))).toBe('stop');
  });
});

describe('the shortcuts sheet', () => {
  it('lists every action once and spells Mod for the device', () => {
    expect(new Set(SHORTCUTS.map((s) => s.action)).size).toBe(SHORTCUTS.length);
    expect(formatKeys('Mod+K', true)).toBe('⌘+K');
    expect(formatKeys('Mod+K', false)).toBe('Ctrl+K');
  });
});
