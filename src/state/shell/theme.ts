import { THEMES, type Theme } from '../../core/model/settings';

/** The settings key of the chosen theme. */
export const THEME_SETTING_KEY = 'theme';

export { THEMES, type Theme };

/** A stored value from any version (or none) as a theme; unknown values fall back to system. */
export function parseTheme(value: unknown): Theme {
  return THEMES.find((theme) => theme === value) ?? 'system';
}

/**
 * The `data-theme` attribute for `<html>`: null for system, so the stylesheet's
 * `prefers-color-scheme` rule decides.
 */
export function toThemeAttribute(theme: Theme): 'light' | 'dark' | null {
  return theme === 'system' ? null : theme;
}
