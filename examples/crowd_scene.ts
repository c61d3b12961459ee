/**
 * The demos' crowd (`deno task demo --crowd N`, the web page's crowd
 * mode): N small characters (issue #30's: 20 joints, 300 vertices, 2
 * influences, normals) on a square grid, each cross-fading between a walk
 * and a run every 1–4 s (seeded), with level of detail by distance from a
 * camera circling the crowd: near, full rate and every influence; then
 * every 2nd frame; then every 4th frame with one influence; beyond,
 * culled (animated, not skinned). The grid is the game's placement: the
 * characters share one model space, so the bands come from the game's own
 * positions through `setLevelOfDetail`, called only when an entity changes
 * band. Nothing here needs Deno: it runs in browsers too.
 *
 * @module
 */

import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  type AnimationPipeline,
  type Clip,
  createAnimation,
  createAnimationPipeline,
  crossFadeTo,
  disposeAnimation,
  getSkinnedNormals,
  getSkinnedPositions,
  playClip,
  SkeletonAsset,
  SkinAsset,
} from "../mod.ts";
import { setLevelOfDetail } from "../lod.ts";
import { Core, type CoreBuild, type WorkerPool } from "../kernels.ts";
import { createCylinder, waveClip } from "../procedural/cylinder.ts";

/** Issue #30's small character. */
const SHAPE = { joints: 20, segments: 10, rings: 30, influences: 2, height: 1.8, radius: 0.25 };
/** Metres between neighbouring characters. */
export const CROWD_SPACING = 1.5;
/** Seconds of the cross-fades. */
const FADE = 0.3;

/** A level of detail band: up to `reach` × the grid's half width from the camera. */
export interface CrowdBand {
  readonly label: string;
  readonly reach: number;
  readonly updateRate: number;
  /** 0: every influence. */
  readonly maxInfluences: number;
}

/** The bands, nearest first; beyond the last, culled. */
export const CROWD_BANDS: readonly CrowdBand[] = [
  { label: "full", reach: 0.35, updateRate: 1, maxInfluences: 0 },
  { label: "every 2nd frame", reach: 0.7, updateRate: 2, maxInfluences: 0 },
  { label: "every 4th frame, 1 influence", reach: 1.1, updateRate: 4, maxInfluences: 1 },
];

/** A small deterministic generator (mulberry32): the same crowd on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A crowd of small characters with level of detail, on one core (or a pool's). */
export class CrowdScene {
  readonly core: Core;
  readonly world: object = createWorld();
  readonly skeleton: SkeletonAsset;
  readonly skin: SkinAsset;
  /** The drawn mesh's triangle indices (the skin's output order is the cylinder's). */
  readonly indices: Uint16Array | Uint32Array;
  readonly entities: readonly number[];
  /** Each character's place on the ground: x, z. */
  readonly places: Float32Array;
  /** Each character's band: an index into {@linkcode CROWD_BANDS}, or its length for culled. */
  readonly bands: Uint8Array;
  /** The camera's position: x, y, z. */
  readonly camera: Float64Array = new Float64Array(3);
  readonly #pipeline: AnimationPipeline;
  readonly #clips: readonly Clip[];
  /** Each character's clip (index into `#clips`) and when it switches next. */
  readonly #playing: Uint8Array;
  readonly #switchAt: Float64Array;
  readonly #next: () => number;
  readonly #halfWidth: number;
  #time = 0;

  /**
   * `count` characters on a new core of `build`, or on `pool`'s core,
   * animated on its threads (`taskParallel`: by the task-parallel pipeline).
   */
  constructor(count: number, build: CoreBuild, pool?: WorkerPool, taskParallel = false) {
    this.core = pool?.core ?? Core.create(build);
    createAnimation(this.world, { core: this.core });
    this.#pipeline = createAnimationPipeline(pool ? { pool, taskParallel } : {});
    const cylinder = createCylinder(SHAPE);
    this.indices = cylinder.indices;
    this.skeleton = new SkeletonAsset(cylinder.skeleton, this.core);
    this.skin = new SkinAsset(this.skeleton, cylinder.skin);
    this.#clips = [
      waveClip(SHAPE.joints, { duration: 1 }),
      waveClip(SHAPE.joints, { duration: 0.5, amplitude: 0.4 }),
    ];
    const side = Math.ceil(Math.sqrt(count));
    this.#halfWidth = (side * CROWD_SPACING) / 2;
    this.places = new Float32Array(count * 2);
    this.bands = new Uint8Array(count).fill(255);
    this.#playing = new Uint8Array(count);
    this.#switchAt = new Float64Array(count);
    this.#next = seeded(30);
    const entities: number[] = [];
    for (let i = 0; i < count; i++) {
      const eid = addEntity(this.world);
      addCharacter(this.world, eid, this.skeleton, this.skin, { normals: true, tangents: false });
      this.places[i * 2] = ((i % side) + 0.5) * CROWD_SPACING - this.#halfWidth;
      this.places[i * 2 + 1] = (Math.floor(i / side) + 0.5) * CROWD_SPACING - this.#halfWidth;
      const clip = this.#next() < 0.5 ? 0 : 1;
      this.#playing[i] = clip;
      playClip(this.world, eid, this.#clips[clip], { time: this.#next() });
      this.#switchAt[i] = 1 + 3 * this.#next();
      entities.push(eid);
    }
    this.entities = entities;
  }

  /** The systems in frame order. */
  get systems(): readonly string[] {
    return this.#pipeline.systems.map((s) => s.name);
  }

  /**
   * Advances the scene by `deltaSeconds`: the camera moves, characters
   * change band and clip, then the pipeline runs; given `times`, one
   * system at a time, each one's milliseconds added to `times`.
   */
  frame(deltaSeconds: number, times?: Map<string, number>): void {
    const time = this.#time += deltaSeconds;
    const angle = time * 0.2, radius = this.#halfWidth * 0.6;
    this.camera[0] = Math.cos(angle) * radius;
    this.camera[1] = 1.7;
    this.camera[2] = Math.sin(angle) * radius;
    this.#placeBands();
    for (let i = 0; i < this.entities.length; i++) {
      if (time < this.#switchAt[i]) continue;
      const clip = this.#playing[i] ^= 1;
      crossFadeTo(this.world, this.entities[i], this.#clips[clip], FADE);
      this.#switchAt[i] = time + 1 + 3 * this.#next();
    }
    if (!times) return this.#pipeline(this.world, deltaSeconds);
    for (const system of this.#pipeline.systems) {
      const start = performance.now();
      system.run(this.world, deltaSeconds);
      times.set(system.name, (times.get(system.name) ?? 0) + performance.now() - start);
    }
  }

  /** The pipeline's mode: `"single"`, `"parallel"` or `"task-parallel"` (see `createAnimationPipeline`). */
  get mode(): string {
    return this.#pipeline.mode;
  }

  /** Skinned positions `(x, y, z, 1)` of character `i`, in output order (a view). */
  positions(i: number): Float32Array {
    return getSkinnedPositions(this.world, this.entities[i]);
  }

  /** Skinned normals of character `i` (a view). */
  normals(i: number): Float32Array {
    return getSkinnedNormals(this.world, this.entities[i])!;
  }

  /** Characters in each band, then the culled ones. */
  bandCounts(): number[] {
    const counts = new Array<number>(CROWD_BANDS.length + 1).fill(0);
    for (const band of this.bands) counts[band]++;
    return counts;
  }

  /** Gives the world's and the assets' core memory back. */
  dispose(): void {
    disposeAnimation(this.world);
    this.skin.dispose();
    this.skeleton.dispose();
  }

  /** Each character's band by its ground distance from the camera; LevelOfDetail set where it changed. */
  #placeBands(): void {
    const [x, , z] = this.camera;
    for (let i = 0; i < this.entities.length; i++) {
      const distance = Math.hypot(this.places[i * 2] - x, this.places[i * 2 + 1] - z);
      let band = 0;
      while (band < CROWD_BANDS.length && distance > CROWD_BANDS[band].reach * this.#halfWidth) {
        band++;
      }
      if (band === this.bands[i]) continue;
      this.bands[i] = band;
      const settings = CROWD_BANDS[band];
      setLevelOfDetail(
        this.world,
        this.entities[i],
        settings
          ? {
            updateRate: settings.updateRate,
            maxInfluences: settings.maxInfluences,
            visible: true,
          }
          : { visible: false },
      );
    }
  }
}
