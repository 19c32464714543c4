// The API key lives in sessionStorage only: it is gone when the tab closes, and is never
// written to localStorage, a cookie or the URL.

const KEY = "quire.apiKey";

export function apiKey(): string | null {
  return sessionStorage.getItem(KEY);
}

export function signIn(key: string): void {
  sessionStorage.setItem(KEY, key.trim());
}

export function signOut(): void {
  sessionStorage.removeItem(KEY);
}
