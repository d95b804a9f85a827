import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The app calls /graphql on its own origin; the development server and `vite preview` pass that path
// on to the gateway, streams (multipart subscriptions) included. In production the app's host routes
// /graphql to the gateway the same way, or the app is built with VITE_GATEWAY_URL and the gateway lists
// the app's origin in CORS_ORIGINS.
const gateway = { target: process.env.GATEWAY_URL ?? 'http://127.0.0.1:4000', changeOrigin: true };

export default defineConfig({
  plugins: [react()],
  server: { proxy: { '/graphql': gateway } },
  preview: { proxy: { '/graphql': gateway } },
});
