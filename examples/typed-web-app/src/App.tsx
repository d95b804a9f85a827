import { useState, type FormEvent } from 'react';
import { ExceptionsQueue } from './ExceptionsQueue';
import { getToken, setToken } from './token';

export function App() {
  const [signedIn, setSignedIn] = useState(getToken() !== null);
  if (signedIn) return <main><h1>Exceptions queue</h1><ExceptionsQueue /></main>;
  const signIn = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setToken(String(new FormData(event.currentTarget).get('token')));
    setSignedIn(true);
  };
  return (
    <main>
      <h1>Exceptions queue</h1>
      <form onSubmit={signIn}>
        <label>Platform token <input name="token" required autoComplete="off" /></label>
        <button type="submit">Open the queue</button>
      </form>
    </main>
  );
}
