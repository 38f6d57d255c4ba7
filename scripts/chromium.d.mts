// Types for chromium.mjs, so the TypeScript tests can import it checked.
export const CHROMIUM_HINT: string;
export const CHROMIUM_MAJORS_BEHIND: number;
export function findChromium(): Promise<string | undefined>;
export function describeOldChromium(versionText: string | undefined, expected: string | undefined): string | null;
export function checkChromiumAge(executable: string): string | null;
