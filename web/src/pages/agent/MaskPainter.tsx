import { type PointerEvent, useEffect, useRef, useState } from 'react';

/**
 * Paints a mask over an image: white where the edit goes, the rest black. The painting is kept at the
 * image's own size (not the size it is shown at), so the mask fits its original exactly.
 */
export function MaskPainter(props: { imageUrl: string; name: string; onDone: (mask: Blob) => void; onCancel: () => void }) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const [size, setSize] = useState<{ width: number; height: number } | undefined>();
  const [brush, setBrush] = useState(24);
  const [painted, setPainted] = useState(false);
  const drawing = useRef(false);

  useEffect(() => {
    const image = new Image();
    image.onload = () => setSize({ width: image.naturalWidth, height: image.naturalHeight });
    image.src = props.imageUrl;
  }, [props.imageUrl]);

  const paintAt = (event: PointerEvent<HTMLCanvasElement>) => {
    const canvas = canvasRef.current;
    const context = canvas?.getContext('2d');
    if (!canvas || !context) return;
    const box = canvas.getBoundingClientRect();
    const scale = canvas.width / box.width;
    context.fillStyle = 'rgba(255, 255, 255, 0.85)';
    context.beginPath();
    context.arc((event.clientX - box.left) * scale, (event.clientY - box.top) * scale, (brush / 2) * scale, 0, Math.PI * 2);
    context.fill();
    setPainted(true);
  };

  const clear = () => {
    const canvas = canvasRef.current;
    canvas?.getContext('2d')?.clearRect(0, 0, canvas.width, canvas.height);
    setPainted(false);
  };

  /** Black everywhere, white where painted (fully opaque), as a PNG of the image's size. */
  const finish = () => {
    const painting = canvasRef.current;
    if (!painting || !size) return;
    const mask = document.createElement('canvas');
    mask.width = size.width;
    mask.height = size.height;
    const context = mask.getContext('2d');
    if (!context) return;
    const strokes = painting.getContext('2d')?.getImageData(0, 0, size.width, size.height);
    const out = context.createImageData(size.width, size.height);
    for (let i = 0; i < out.data.length; i += 4) {
      const on = (strokes?.data[i + 3] ?? 0) > 0;
      out.data[i] = on ? 255 : 0;
      out.data[i + 1] = on ? 255 : 0;
      out.data[i + 2] = on ? 255 : 0;
      out.data[i + 3] = 255;
    }
    context.putImageData(out, 0, 0);
    mask.toBlob((blob) => {
      if (blob) props.onDone(blob);
    }, 'image/png');
  };

  return (
    <fieldset className="mask-painter">
      <legend>Paint the region of {props.name} to edit</legend>
      <p className="small">Paint over the region to change: white is edited, the rest is kept.</p>
      {size ? (
        <div className="mask-stage" style={{ aspectRatio: `${size.width} / ${size.height}` }}>
          <img src={props.imageUrl} alt={props.name} />
          <canvas
            ref={canvasRef}
            width={size.width}
            height={size.height}
            data-testid="mask-canvas"
            aria-label="Mask: paint with the pointer"
            onPointerDown={(event) => {
              drawing.current = true;
              event.currentTarget.setPointerCapture(event.pointerId);
              paintAt(event);
            }}
            onPointerMove={(event) => {
              if (drawing.current) paintAt(event);
            }}
            onPointerUp={() => {
              drawing.current = false;
            }}
          />
        </div>
      ) : (
        <p className="loading">Loading the image…</p>
      )}
      <div className="mask-actions">
        <label className="field-inline">
          Brush <input type="range" min={4} max={120} value={brush} onChange={(e) => setBrush(Number(e.target.value))} />
        </label>
        <button type="button" className="button" onClick={clear} disabled={!painted}>
          Clear
        </button>
        <button type="button" className="button button-primary" onClick={finish} disabled={!painted}>
          Use mask
        </button>
        <button type="button" className="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </fieldset>
  );
}
