import { ApolloProvider } from '@apollo/client/react';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createApolloClient } from './apollo-client';
import { App } from './App';
import { getToken } from './token';

// The gateway's /graphql on this origin (the host passes it on), or another origin allowed by its CORS_ORIGINS.
const client = createApolloClient({ uri: import.meta.env.VITE_GATEWAY_URL ?? '/graphql', getToken });

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ApolloProvider client={client}>
      <App />
    </ApolloProvider>
  </StrictMode>,
);
