import { ApolloProvider } from '@apollo/client/react';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createApolloClient } from './apollo-client';
import { App } from './App';
import { getToken } from './token';

// The gateway's /graphql on the app's own origin: the host that serves the app passes that path on to it.
const client = createApolloClient({ uri: '/graphql', getToken });

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ApolloProvider client={client}>
      <App />
    </ApolloProvider>
  </StrictMode>,
);
