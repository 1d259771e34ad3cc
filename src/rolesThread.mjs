// The roles thread's entry (rolesThreadMain.ts). A worker thread does not inherit the loader its
// process runs TypeScript with (tsx under `npm start`, vite under vitest), so it registers tsx's
// own before it loads any of ours.
import { register } from 'tsx/esm/api';

register();
const { serveRolesThread } = await import('./rolesThreadMain.ts');
await serveRolesThread();
