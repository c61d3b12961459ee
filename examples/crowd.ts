/**
 * The demos' scene, shared by the command-line demo, the web page and the
 * browser tests: a character (generated or from a glTF file) worn by a
 * crowd of entities that play one clip out of step, animated by Marrow's
 * pipeline on a chosen core build, one system at a time so each can be
 * timed. Nothing here needs Deno: it runs in browsers too.
 *
 * @module
 */

import { addEntity, createWorld, query } from "bitecs";
import {
  addCharacter,
  type AnimationComponents,
  type AnimationPipeline,
  type Clip,
  createAnimation,
  createAnimationPipeline,
  disposeAnimation,
  getSkinnedNormals,
  getSkinnedPositions,
  getSkinnedTangents,
  playClip,
  SkeletonAsset,
  SkinAsset,
} from "../mod.ts";
import { addMorphWeights, setMorphWeights } from "../morph.ts";
import { Core, type CoreBuild, type WorkerPool } from "../kernels.ts";
import type { GltfImport, GltfMaterial } from "../gltf/mod.ts";
import type { SkeletonDefinition, SkinDefinition } from "../animation/definitions.ts";
import { createCylinder, waveClip } from "../procedural/cylinder.ts";

/** One drawable mesh of a character, in source vertex order. */
export interface DemoMesh {
  readonly skin: SkinDefinition;
  /** Triangle (or other `mode`) indices; none means vertices in order. */
  readonly indices?: Uint16Array | Uint32Array;
  /** glTF primitive mode (4 = triangles). */
  readonly mode: number;
  /** `TEXCOORD_0` in the mesh's skinned output order, 2 floats per vertex. */
  readonly uvs?: Float32Array;
  /** The mesh's glTF material (its textures in {@linkcode DemoCharacter.appearance}). */
  readonly material?: GltfMaterial;
}

/** What a demo scene is made of, independent of the core it runs on. */
export interface DemoCharacter {
  readonly name: string;
  readonly skeleton: SkeletonDefinition;
  /** The skinned meshes, all worn by each entity (one skin of several meshes). */
  readonly meshes: readonly DemoMesh[];
  /** The clip every entity plays, if any. */
  readonly clip?: Clip;
  /** The file's textures, samplers and images, which the meshes' materials name. */
  readonly appearance?: Pick<GltfImport, "textures" | "samplers" | "images">;
  /** Called for each entity once it plays the clip (the layered mode adds layers). */
  readonly setup?: (world: object, eid: number, skeleton: SkeletonAsset) => void;
}

/** Seconds between the clip times of neighbouring entities, so a crowd moves out of step. */
const PHASE = 0.1;

/** The name glTF viewers show for a clip: its own, else `animation_<index>`. */
export function clipLabel(clip: Clip): string {
  return clip.name || `animation_${clip.animation}`;
}

/** The default character: a cylinder of 30 joints and 2,048 vertices playing a wave clip. */
export function cylinderCharacter(): DemoCharacter {
  const joints = 30;
  const cylinder = createCylinder({ joints, segments: 32, rings: 64 });
  return {
    name: "generated cylinder (30 joints, 2,048 vertices, 1-4 influences)",
    skeleton: cylinder.skeleton,
    meshes: [{ skin: cylinder.skin, indices: cylinder.indices, mode: 4 }],
    clip: waveClip(joints),
  };
}

/** A character's entities in a world of their own, on one core build. */
export class Crowd {
  readonly core: Core;
  readonly world: object = createWorld();
  readonly skeleton: SkeletonAsset;
  readonly skin: SkinAsset;
  readonly entities: readonly number[];
  readonly #pipeline: AnimationPipeline;
  readonly #components: AnimationComponents;
  /** Scratch for the morph weights the demo sets each frame. */
  readonly #weights: Float32Array;
  #time = 0;

  /**
   * Builds `count` entities wearing `character` on a new core of `build`,
   * or on `pool`'s core, animated on its threads.
   */
  constructor(character: DemoCharacter, count: number, build: CoreBuild, pool?: WorkerPool) {
    this.core = pool?.core ?? Core.create(build);
    this.#pipeline = createAnimationPipeline({ pool });
    this.#components = createAnimation(this.world, { core: this.core });
    this.skeleton = new SkeletonAsset(character.skeleton, this.core);
    this.skin = new SkinAsset(this.skeleton, character.meshes.map((m) => m.skin));
    const entities: number[] = [];
    const morphs = this.skin.morphTargetNames.length;
    this.#weights = new Float32Array(morphs);
    for (let i = 0; i < count; i++) {
      const eid = addEntity(this.world);
      addCharacter(this.world, eid, this.skeleton, this.skin);
      // A face with blend shapes makes faces: its clips key them at 0, so the demo sets them.
      if (morphs > 0) addMorphWeights(this.world, eid);
      if (character.clip) playClip(this.world, eid, character.clip, { time: i * PHASE });
      character.setup?.(this.world, eid, this.skeleton);
      entities.push(eid);
    }
    this.entities = entities;
  }

  /** The systems in frame order. */
  get systems(): readonly string[] {
    return this.#pipeline.systems.map((s) => s.name);
  }

  /**
   * The systems no entity of the crowd goes through (IK with no chain,
   * the skinning system of the streams the skin does not have), which a
   * timing table leaves out: their time is only their call.
   */
  idleSystems(): Set<string> {
    const idle = new Set<string>();
    const { IK, ClipPlayer } = this.#components;
    if (query(this.world, [IK]).length === 0) idle.add("ik");
    if (query(this.world, [ClipPlayer]).length === 0) idle.add("sampleClips");
    const directions = this.entities.filter((_, i) => this.normals(i) ?? this.tangents(i));
    if (directions.length === 0) idle.add("skinWithTangents");
    if (directions.length === this.entities.length) idle.add("skin");
    return idle;
  }

  /**
   * Advances the scene by `deltaSeconds`, one system at a time; adds each
   * system's time in milliseconds to `times` when given.
   */
  frame(deltaSeconds: number, times?: Map<string, number>): void {
    this.#time += deltaSeconds;
    const weights = this.#weights;
    for (let i = 0; weights.length > 0 && i < this.entities.length; i++) {
      // Each target swells and fades in turn, each entity out of step.
      for (let t = 0; t < weights.length; t++) {
        weights[t] = Math.max(0, Math.sin(this.#time * 1.5 - t * 2.1 + i * 0.7));
      }
      setMorphWeights(this.world, this.entities[i], weights);
    }
    for (const system of this.#pipeline.systems) {
      const start = performance.now();
      system.run(this.world, deltaSeconds);
      if (times) times.set(system.name, (times.get(system.name) ?? 0) + performance.now() - start);
    }
  }

  /** Skinned positions `(x, y, z, 1)` of entity number `i`, in output order (a view). */
  positions(i: number): Float32Array {
    return getSkinnedPositions(this.world, this.entities[i]);
  }

  /** Skinned normals of entity number `i`, if the skin has them (a view). */
  normals(i: number): Float32Array | undefined {
    return getSkinnedNormals(this.world, this.entities[i]);
  }

  /** Skinned tangents of entity number `i`, if the skin has them (a view). */
  tangents(i: number): Float32Array | undefined {
    return getSkinnedTangents(this.world, this.entities[i]);
  }

  /** Gives the world's and the assets' core memory back. */
  dispose(): void {
    disposeAnimation(this.world);
    this.skin.dispose();
    this.skeleton.dispose();
  }
}
