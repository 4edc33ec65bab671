import { createServer, type Server } from 'node:http';
import { renderAudio } from '../../src/providers/local/render/render-audio.ts';
import { renderImage } from '../../src/providers/local/render/render-image.ts';
import { renderVideo } from '../../src/providers/local/render/render-video.ts';

/**
 * Serves real media files on 127.0.0.1 for tests that give the gateway user media URLs
 * (reference images, videos to probe, audio). Paths: /image.png, /image.jpg, /video-<seconds>s.mp4,
 * /audio-<seconds>s.mp3, /not-media.txt; anything else is 404.
 */
export interface MediaServer {
  url: string;
  imageUrl: string;
  videoUrl(seconds: number): string;
  audioUrl(seconds: number): string;
  close(): Promise<void>;
}

export async function startMediaServer(): Promise<MediaServer> {
  const cache = new Map<string, Promise<{ type: string; body: Buffer }>>();
  const produce = (path: string): Promise<{ type: string; body: Buffer }> | undefined => {
    const known = cache.get(path);
    if (known) return known;
    let made: Promise<{ type: string; body: Buffer }> | undefined;
    const video = /^\/video-(\d+(?:\.\d+)?)s\.mp4$/.exec(path);
    const audio = /^\/audio-(\d+(?:\.\d+)?)s\.mp3$/.exec(path);
    if (path === '/image.png') made = renderImage({ prompt: 'reference', seed: 1, width: 640, height: 480, format: 'png' }).then((body) => ({ type: 'image/png', body }));
    else if (path === '/image.jpg') made = renderImage({ prompt: 'reference', seed: 2, width: 640, height: 480, format: 'jpeg' }).then((body) => ({ type: 'image/jpeg', body }));
    else if (video)
      made = renderVideo({ prompt: 'clip', seed: 3, width: 320, height: 240, durationS: Number(video[1]), fps: 12, withAudio: true, format: 'mp4' }).then((body) => ({ type: 'video/mp4', body }));
    else if (audio) made = renderAudio({ seed: 4, durationS: Number(audio[1]), format: 'mp3' }).then((body) => ({ type: 'audio/mpeg', body }));
    else if (path === '/not-media.txt') made = Promise.resolve({ type: 'text/plain', body: Buffer.from('hello, this is not a video') });
    if (made) cache.set(path, made);
    return made;
  };
  const server: Server = createServer((req, res) => {
    const made = produce((req.url ?? '/').split('?')[0] ?? '/');
    if (!made) {
      res.writeHead(404).end();
      return;
    }
    made.then(
      ({ type, body }) => res.writeHead(200, { 'content-type': type, 'content-length': body.length }).end(body),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    url,
    imageUrl: `${url}/image.png`,
    videoUrl: (seconds) => `${url}/video-${seconds}s.mp4`,
    audioUrl: (seconds) => `${url}/audio-${seconds}s.mp3`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
