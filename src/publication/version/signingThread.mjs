// The signing thread's entry (signingThread.ts). A worker thread does not inherit the loader its
// process runs TypeScript with (tsx under `npm start`, vite under vitest), so it registers tsx's
// own before it loads any of ours.
import { register } from 'tsx/esm/api';

register();
const { serveSigningThread } = await import('./signingThread.ts');
serveSigningThread();
