import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The app calls /graphql on its own origin; the development server and `vite preview` pass that path
// on to the gateway (GATEWAY_URL), streams (multipart subscriptions) included. In production the host
// that serves dist/ routes /graphql to the gateway the same way.
const gateway = { target: process.env.GATEWAY_URL ?? 'http://127.0.0.1:4000', changeOrigin: true };

export default defineConfig({
  plugins: [react()],
  server: { proxy: { '/graphql': gateway } },
  preview: { proxy: { '/graphql': gateway } },
});
