// Nocturne's service worker: after the first visit the app loads with no network.
// Hashed build files are cached on first use (cache first); the page itself is fetched
// fresh when the network answers and served from the cache when it does not.
// Calls to a model endpoint (other origins) are never cached.
const CACHE = 'nocturne-v2';

self.addEventListener('install', (event) => {
  // The gate case files (for the Verify panel) are precached so Verify works offline.
  const cases = (c) => fetch('cases/index.json')
    .then((r) => r.json())
    .then((names) => c.addAll(['cases/index.json', ...names.map((n) => 'cases/' + n)]));
  event.waitUntil(
    caches.open(CACHE)
      .then((c) => c.addAll(['/', '/index.html']).then(() => cases(c).catch(() => undefined)))
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
