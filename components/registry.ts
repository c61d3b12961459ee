/**
 * The registry: Marrow's components, in dependency order (each after what
 * it needs). `createAnimation` hands it to the lifecycle machinery, which
 * derives from it the add and remove observers, the dependents, the world
 * reset and release order, and the frame's up-front checks. Adding a
 * component: its file (a `defineComponent`), and here its line in
 * {@linkcode COMPONENTS} and its member of {@linkcode AnimationComponents}
 * (the public, documented type `createAnimation` returns; `createAnimation`
 * fails to compile while a registered component is missing from it).
 * Also the types the registry gives the world's state: every component's
 * store and record.
 *
 * @module
 */

import type { Store } from "./_stores.ts";
import type { MachineryRecord, WorldBase } from "./_world.ts";
import { SKELETON, type SkeletonComponent } from "./skeleton.ts";
import { JOINT_QUAT, type JointQuatComponent } from "./joint_quat.ts";
import { JOINT_MAT, type JointMatComponent } from "./joint_mat.ts";
import { SKIN, type SkinComponent } from "./skin.ts";
import { CLIP_PLAYER, type ClipPlayerComponent } from "./clip_player.ts";
import { IK, type IKComponent } from "./ik.ts";
import { MORPH_WEIGHTS, type MorphWeightsComponent } from "./morph_weights.ts";
import { LEVEL_OF_DETAIL, type LevelOfDetailComponent } from "./level_of_detail.ts";

/** @internal Marrow's components, each after the components it needs. */
export const COMPONENTS = [
  SKELETON,
  JOINT_QUAT,
  JOINT_MAT,
  SKIN,
  CLIP_PLAYER,
  IK,
  MORPH_WEIGHTS,
  LEVEL_OF_DETAIL,
] as const;

/** Marrow's components for one world. */
export interface AnimationComponents {
  /** Shared skeleton of an entity. */
  readonly Skeleton: SkeletonComponent;
  /** Local pose: translation, rotation quaternion, scale per joint. */
  readonly JointQuat: JointQuatComponent;
  /** Model-space matrices and skinning palette. */
  readonly JointMat: JointMatComponent;
  /** Shared skinned meshes and per-entity skinned output. */
  readonly Skin: SkinComponent;
  /** Clip playback state. */
  readonly ClipPlayer: ClipPlayerComponent;
  /** IK chains. */
  readonly IK: IKComponent;
  /** Morph target weights and morphed bind streams. */
  readonly MorphWeights: MorphWeightsComponent;
  /** Level of detail: update rate and culling. */
  readonly LevelOfDetail: LevelOfDetailComponent;
}

type Registered = typeof COMPONENTS[number];

/** @internal A component's name. */
export type ComponentName = Registered["name"];

/** @internal Every component's public store, by name. */
type ComponentStores = { readonly [C in Registered as C["name"]]: Store<C["shape"]> };

/** The union of `U`'s members as an intersection. */
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I
  : never;

/** @internal What each entity owns: the truth the stores are checked against. */
export type Owned = MachineryRecord & Intersection<Store<Registered["record"]>>;

/** @internal A world's state, every component's store and record typed. */
export type WorldState = WorldBase & {
  readonly components: ComponentStores;
  readonly owned: Owned;
};
