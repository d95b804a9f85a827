// The caller's platform token, kept for the browser tab's life only. A real app takes it from its sign-in.
const KEY = 'platform-token';

export const getToken = (): string | null => sessionStorage.getItem(KEY);
export const setToken = (token: string): void => sessionStorage.setItem(KEY, token);
