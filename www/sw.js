// Nocturne's service worker: after the first visit the app loads with no network.
// Hashed build files and the on-demand modules are cached on first use (cache first); the
// page and other unhashed files are fetched fresh when the network answers and served from the cache when it does not.
// Calls to a model endpoint (other origins) are never cached, nor a model file this site
// offers (models/): the in-page model keeps its file in the origin private file system.
const CACHE = 'nocturne-v3';
// This build's hashed files (scripts/precache.py writes them in), cached on install so the
// first visit is enough to start offline.
const PRECACHE = [];
// The wasm modules named without a hash (the import and sync workers, fetched on first use
// and cached then; the job worker, precached with PRECACHE): served from the cache first; their
// contents are part of the cache's name (scripts/precache.py), so a build that changes them
// starts a new cache.
const ON_DEMAND = /\/nocturne-(import|sync-worker|jobs)(_bg|_loader)?\.(js|wasm)$/;
// What makes the app installable, cached with it so an installed app opens offline.
const INSTALL = ['manifest.webmanifest', 'icons/icon-192.png', 'icons/icon-512.png', 'icons/maskable-512.png'];

self.addEventListener('install', (event) => {
  // The gate case files (for the Verify panel) are precached so Verify works offline.
  const cases = (c) => fetch('cases/index.json')
    .then((r) => r.json())
    .then((names) => c.addAll(['cases/index.json', ...names.map((n) => 'cases/' + n)]));
  event.waitUntil(
    caches.open(CACHE)
      .then((c) => c.addAll(['/', '/index.html', ...INSTALL, ...PRECACHE]).then(() => cases(c).catch(() => undefined)))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (url.pathname.includes('/models/')) return;
  const isPage = event.request.mode === 'navigate' || url.pathname === '/' || url.pathname.endsWith('.html');
  if (isPage) {
    event.respondWith(
      fetch(event.request)
        .then((resp) => {
          const copy = resp.clone();
          caches.open(CACHE).then((c) => c.put('/', copy));
          return resp;
        })
        .catch(() => caches.match('/')),
    );
    return;
  }
  // Files without a content hash in their name (the in-page runtime, the case files) may
  // change under the same name: fresh when the network answers, cached when it does not.
  const hashed = /-[0-9a-f]{8,}(_bg)?\.(js|wasm|css)$/.test(url.pathname) || url.pathname.includes('/snippets/');
  if (!hashed && !ON_DEMAND.test(url.pathname)) {
    event.respondWith(
      fetch(event.request)
        .then((resp) => {
          if (resp.ok) {
            const copy = resp.clone();
            caches.open(CACHE).then((c) => c.put(event.request, copy));
          }
          return resp;
        })
        .catch(() => caches.match(event.request).then((hit) => hit || Response.error())),
    );
    return;
  }
  event.respondWith(
    caches.match(event.request).then((hit) => hit || fetch(event.request).then((resp) => {
      if (resp.ok) {
        const copy = resp.clone();
        caches.open(CACHE).then((c) => c.put(event.request, copy));
      }
      return resp;
    })),
  );
});
