// The highlight-area editor's drawing surface (wrapped by portal/components/area_editor.py).
//
// Draws the areas (boxes in percent of the screenshot: left, top, width, height) over the image,
// exactly as the participant's split view does (a relative box around a full-width image, areas
// positioned in percent, border inside the box). Drag on the image to draw an area, drag an area
// to move it, drag a corner of the selected area to resize it. Each area is a button: Tab focuses
// it (and selects it), arrow keys move it and Shift+arrow keys resize it by `step` percent.
// Every finished gesture or key press reports one change [x1, y1, x2, y2] in percent; the server
// checks it and sends the areas back, which are then drawn.
import { useEffect, useRef, useState } from "react";

const CSS = `
.area-editor { position: relative; width: 100%; touch-action: none; user-select: none; -webkit-user-select: none; cursor: crosshair; }
.area-editor img { width: 100%; height: auto; display: block; pointer-events: none; }
.area-editor-box { position: absolute; box-sizing: border-box; border: 2px dashed var(--gray-10); border-radius: 6px;
  background: color-mix(in srgb, var(--accent-9) 8%, transparent); padding: 0; margin: 0; cursor: move; font: inherit; }
.area-editor-box[aria-pressed="true"] { border: 3px solid var(--accent-9); background: color-mix(in srgb, var(--accent-9) 16%, transparent); }
.area-editor-box:focus-visible { outline: 3px solid var(--accent-11); outline-offset: 2px; }
.area-editor-number { position: absolute; top: -12px; left: calc(50% - 12px); min-width: 24px; height: 24px; padding: 0 6px; border-radius: 12px;
  background: var(--accent-9); color: white; font-size: 13px; font-weight: 600; display: flex; align-items: center;
  justify-content: center; box-sizing: border-box; pointer-events: none; }
.area-editor-handle { position: absolute; width: 14px; height: 14px; background: white; border: 2px solid var(--accent-9);
  border-radius: 3px; box-sizing: border-box; }
.area-editor-draft { position: absolute; box-sizing: border-box; border: 2px solid var(--accent-9); border-radius: 6px;
  background: color-mix(in srgb, var(--accent-9) 12%, transparent); pointer-events: none; }
`;

const CORNERS = {
  nw: { left: "-8px", top: "-8px", cursor: "nwse-resize" },
  ne: { right: "-8px", top: "-8px", cursor: "nesw-resize" },
  sw: { left: "-8px", bottom: "-8px", cursor: "nesw-resize" },
  se: { right: "-8px", bottom: "-8px", cursor: "nwse-resize" },
};

const round = (v) => Math.round(v * 100) / 100;
const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));

function corners(box) {
  return [box.left, box.top, box.left + box.width, box.top + box.height];
}

function fromCorners([x1, y1, x2, y2]) {
  return { left: x1, top: y1, width: x2 - x1, height: y2 - y1 };
}

function sent(box) {
  return corners(box).map((v) => round(clamp(v, 0, 100)));
}

function moved(box, dx, dy) {
  const left = clamp(box.left + dx, 0, 100 - box.width);
  const top = clamp(box.top + dy, 0, 100 - box.height);
  return { ...box, left, top };
}

function resized(box, corner, x, y, min) {
  let [x1, y1, x2, y2] = corners(box);
  if (corner.includes("w")) x1 = clamp(x, 0, x2 - min);
  if (corner.includes("e")) x2 = clamp(x, x1 + min, 100);
  if (corner.includes("n")) y1 = clamp(y, 0, y2 - min);
  if (corner.includes("s")) y2 = clamp(y, y1 + min, 100);
  return fromCorners([x1, y1, x2, y2]);
}

export function AreaEditor({ src, alt, boxes, selected, step, minSize, onAreaCreate, onAreaChange, onAreaSelect }) {
  const surface = useRef(null);
  const gesture = useRef(null);
  const [draft, setDraft] = useState(null); // {index (-1: a new area), box} while dragging or waiting for the server
  const areas = Array.isArray(boxes) ? boxes : [];
  const min = Number(minSize) || 1;
  const stepSize = Number(step) || 1;

  useEffect(() => {
    // The server's areas arrived: draw them instead of the local draft once they caught up with it
    // (key presses may be ahead of the server's answers; a refused change is dropped by the timer below).
    if (gesture.current || !draft) return;
    const server = draft.index >= 0 ? areas[draft.index] : null;
    const same = server && sent(server).every((v, i) => Math.abs(v - sent(draft.box)[i]) < 0.011);
    if (draft.index < 0 || !server || same) setDraft(null);
  }, [boxes]); // eslint-disable-line react-hooks/exhaustive-deps

  useEffect(() => {
    if (!draft || gesture.current) return undefined;
    const timer = setTimeout(() => setDraft(null), 2000); // the server refused the change
    return () => clearTimeout(timer);
  }, [draft]);

  function point(event) {
    const rect = surface.current.getBoundingClientRect();
    return {
      x: clamp(((event.clientX - rect.left) / rect.width) * 100, 0, 100),
      y: clamp(((event.clientY - rect.top) / rect.height) * 100, 0, 100),
    };
  }

  function start(event, kind, index, corner) {
    if (event.button !== 0) return;
    event.preventDefault();
    event.stopPropagation();
    const at = point(event);
    gesture.current = { kind, index, corner, at, box: index >= 0 ? areas[index] : null, moved: false };
    surface.current.setPointerCapture(event.pointerId);
    const button = index >= 0 ? event.currentTarget.closest("button") : null;
    if (button && document.activeElement !== button) button.focus({ preventScroll: true }); // focus selects it
    else if (button && index !== selected && onAreaSelect) onAreaSelect(index);
  }

  function move(event) {
    const g = gesture.current;
    if (!g) return;
    const at = point(event);
    const dx = at.x - g.at.x;
    const dy = at.y - g.at.y;
    if (Math.abs(dx) + Math.abs(dy) > 0.2) g.moved = true;
    if (g.kind === "draw") {
      g.draft = { index: -1, box: fromCorners([Math.min(g.at.x, at.x), Math.min(g.at.y, at.y), Math.max(g.at.x, at.x), Math.max(g.at.y, at.y)]) };
    } else if (g.kind === "move") {
      g.draft = { index: g.index, box: moved(g.box, dx, dy) };
    } else {
      g.draft = { index: g.index, box: resized(g.box, g.corner, at.x, at.y, min) };
    }
    setDraft(g.draft);
  }

  function end(event) {
    const g = gesture.current;
    gesture.current = null;
    if (!g) return;
    if (surface.current.hasPointerCapture(event.pointerId)) surface.current.releasePointerCapture(event.pointerId);
    const draft = g.draft;
    if (!g.moved || !draft) {
      setDraft(null);
      return;
    }
    if (g.kind === "draw") {
      if (draft.box.width >= min && draft.box.height >= min && onAreaCreate) onAreaCreate(sent(draft.box));
      else setDraft(null);
    } else if (onAreaChange) {
      onAreaChange(g.index, sent(draft.box));
    }
  }

  function key(event, index) {
    const box = draft && draft.index === index ? draft.box : areas[index];
    const arrows = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    const arrow = arrows[event.key];
    if (!arrow || !box) return;
    event.preventDefault();
    const [ax, ay] = arrow;
    let next;
    if (event.shiftKey) {
      const [x1, y1] = corners(box);
      next = fromCorners([x1, y1, clamp(x1 + box.width + ax * stepSize, x1 + min, 100), clamp(y1 + box.height + ay * stepSize, y1 + min, 100)]);
    } else {
      next = moved(box, ax * stepSize, ay * stepSize);
    }
    setDraft({ index, box: next });
    if (onAreaChange) onAreaChange(index, sent(next));
  }

  const style = (box) => ({ left: `${box.left}%`, top: `${box.top}%`, width: `${box.width}%`, height: `${box.height}%` });

  return (
    <div className="area-editor" ref={surface} id="area-editor-surface"
         onPointerDown={(e) => start(e, "draw", -1)} onPointerMove={move} onPointerUp={end} onPointerCancel={end}>
      <style>{CSS}</style>
      <img src={src} alt={alt} id="area-editor-image" draggable={false} />
      {areas.map((area, index) => {
        const box = draft && draft.index === index ? draft.box : area;
        const [x1, y1, x2, y2] = sent(box);
        const isSelected = index === selected;
        return (
          <button type="button" key={index} id={`area-box-${index}`} className="area-editor-box" style={style(box)}
                  aria-pressed={isSelected}
                  aria-label={`Area ${index + 1}, from ${x1}%, ${y1}% to ${x2}%, ${y2}%. Arrow keys move it, Shift and arrow keys resize it.`}
                  onPointerDown={(e) => start(e, "move", index)}
                  onFocus={() => { if (!isSelected && onAreaSelect) onAreaSelect(index); }}
                  onKeyDown={(e) => key(e, index)}>
            <span className="area-editor-number" aria-hidden="true">{index + 1}</span>
            {isSelected && Object.entries(CORNERS).map(([corner, place]) => (
              <span key={corner} className="area-editor-handle" aria-hidden="true" data-corner={corner} style={place}
                    onPointerDown={(e) => start(e, "resize", index, corner)} />
            ))}
          </button>
        );
      })}
      {draft && draft.index === -1 && <div className="area-editor-draft" style={style(draft.box)} />}
    </div>
  );
}
