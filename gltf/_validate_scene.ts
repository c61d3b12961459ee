/**
 * Validation of what the importer uses above the data layer: the asset
 * version, required extensions, meshes (with their morph targets, default
 * weights and target names), the node tree, skins and animations. Everything else (materials, textures, images, cameras,
 * scenes, extras, extensions) is left out of the copy the parser sees.
 *
 * @module
 */

import type { ImportContext } from "./_context.ts";
import {
  array,
  describe,
  index,
  integer,
  type JsonObject,
  numbers,
  object,
  objects,
  string,
} from "./_json.ts";
import type { AccessorInfo } from "./_validate_data.ts";

/** The only required extension that changes what Marrow reads, and which it honours. */
const HONOURED = "KHR_mesh_quantization";
/**
 * Required extensions that change only materials, textures or lights, which
 * Marrow does not import: a file requiring them imports as if it did not.
 */
const ONLY_APPEARANCE = /^(KHR_materials_|KHR_texture_|EXT_texture_|KHR_lights_|EXT_lights_)/;

/** Vertex attributes the importer reads; other attributes are left out. */
const USED_ATTRIBUTE = /^(POSITION|NORMAL|TANGENT|TEXCOORD_0|COLOR_0|JOINTS_\d+|WEIGHTS_\d+)$/;
const MAX_SKIN_JOINTS = 32767;
const PATHS = ["translation", "rotation", "scale", "weights"];
const INTERPOLATIONS = ["LINEAR", "STEP", "CUBICSPLINE"];

/** Checks `asset.version` and `extensionsRequired`. */
export function validateHeader(ctx: ImportContext, root: JsonObject): void {
  const asset = object(ctx, root.asset, "/asset");
  const version = asset.version;
  if (typeof version !== "string" || !/^2\.\d+$/.test(version)) {
    ctx.fail("/asset/version", `the glTF version is ${describe(version)}, only 2.x is read`);
  }
  array(ctx, root.extensionsRequired, "/extensionsRequired").forEach((name, i) => {
    if (name === HONOURED || (typeof name === "string" && ONLY_APPEARANCE.test(name))) return;
    ctx.fail(
      `/extensionsRequired/${i}`,
      `the file requires the extension ${describe(name)}, which Marrow cannot honour`,
    );
  });
}

/** The meshes, with only the primitives' used attributes, indices and mode. */
export function validateMeshes(
  ctx: ImportContext,
  root: JsonObject,
  accessors: readonly AccessorInfo[],
): JsonObject[] {
  return objects(ctx, root, "meshes", "").map((mesh, m) => {
    const pointer = `/meshes/${m}`;
    const primitives = objects(ctx, mesh, "primitives", pointer);
    if (primitives.length === 0) {
      ctx.fail(`${pointer}/primitives`, "a mesh needs at least one primitive");
    }
    let targetCount = 0;
    const out: Record<string, unknown> = {
      name: string(ctx, mesh.name, `${pointer}/name`),
      primitives: primitives.map((p, i) => {
        const at = `${pointer}/primitives/${i}`;
        const attributes = object(ctx, p.attributes, `${at}/attributes`);
        const used = Object.entries(attributes).filter(([semantic]) =>
          USED_ATTRIBUTE.test(semantic)
        );
        for (const [semantic, value] of used) {
          index(ctx, value, `${at}/attributes/${semantic}`, accessors.length, "accessor");
        }
        const out: Record<string, unknown> = {
          attributes: Object.fromEntries(used),
          mode: integer(ctx, p.mode, `${at}/mode`, 0, 6, 4),
        };
        const targets = validateTargets(ctx, p, at, accessors);
        if (targets.length) out.targets = targets;
        if (i > 0 && targets.length !== targetCount) {
          ctx.fail(
            `${at}/targets`,
            `the primitive has ${targets.length} morph targets, but primitive 0 of the mesh has ` +
              `${targetCount}: glTF requires the same number`,
          );
        }
        targetCount = targets.length;
        if (p.indices !== undefined) {
          const a = index(ctx, p.indices, `${at}/indices`, accessors.length, "accessor");
          const info = accessors[a];
          if (info.type !== "SCALAR" || ![5121, 5123, 5125].includes(info.componentType)) {
            ctx.fail(`${at}/indices`, "indices must be SCALAR unsigned bytes, shorts or ints");
          }
          out.indices = a;
        }
        return out;
      }),
    };
    return { ...out, ...morphWeightsOf(ctx, mesh, pointer, targetCount) };
  });
}

/** Attributes a morph target may displace, as the importer reads them. */
const TARGET_ATTRIBUTES = ["POSITION", "NORMAL", "TANGENT"];
/** Component types of target displacements: floats, or (KHR_mesh_quantization) signed bytes or shorts. */
const TARGET_COMPONENTS = [5126, 5120, 5122];

/** A primitive's morph targets, each with only the attributes read (VEC3 accessors). */
function validateTargets(
  ctx: ImportContext,
  primitive: JsonObject,
  pointer: string,
  accessors: readonly AccessorInfo[],
): JsonObject[] {
  return objects(ctx, primitive, "targets", pointer).map((target, k) => {
    const out: Record<string, number> = {};
    for (const semantic of TARGET_ATTRIBUTES) {
      if (target[semantic] === undefined) continue;
      const at = `${pointer}/targets/${k}/${semantic}`;
      const a = index(ctx, target[semantic], at, accessors.length, "accessor");
      const { type, componentType } = accessors[a];
      if (type !== "VEC3" || !TARGET_COMPONENTS.includes(componentType)) {
        ctx.fail(at, `a ${semantic} displacement must be VEC3 floats, bytes or shorts`);
      }
      out[semantic] = a;
    }
    return out;
  });
}

/**
 * A mesh's default morph weights (one finite number per target) and target
 * names (`extras.targetNames`, kept when they are one string per target).
 */
function morphWeightsOf(
  ctx: ImportContext,
  mesh: JsonObject,
  pointer: string,
  targetCount: number,
): JsonObject {
  const out: Record<string, unknown> = {};
  if (mesh.weights !== undefined) {
    if (targetCount === 0) {
      ctx.fail(`${pointer}/weights`, "the mesh has weights but no morph targets");
    }
    out.weights = numbers(ctx, mesh.weights, `${pointer}/weights`, targetCount);
  }
  const names = (mesh.extras as JsonObject | undefined)?.targetNames;
  if (names === undefined || targetCount === 0) return out;
  if (
    Array.isArray(names) && names.length === targetCount &&
    names.every((name) => typeof name === "string")
  ) {
    out.extras = { targetNames: names };
  } else {
    ctx.warnings.push(
      `${pointer}/extras/targetNames: not one string per morph target; the targets are unnamed`,
    );
  }
  return out;
}

/** Morph targets of each mesh (of the validated copies). */
export function targetCounts(meshes: readonly JsonObject[]): number[] {
  return meshes.map((m) =>
    ((m.primitives as JsonObject[])[0].targets as unknown[] | undefined)?.length ?? 0
  );
}

/**
 * The nodes, checked to form a forest: every child listed once, by one
 * parent, and no node its own ancestor.
 */
export function validateNodes(
  ctx: ImportContext,
  root: JsonObject,
  meshTargets: readonly number[],
  skinCount: number,
): JsonObject[] {
  const meshCount = meshTargets.length;
  const defs = objects(ctx, root, "nodes", "");
  const parent = new Int32Array(defs.length).fill(-1);
  const nodes = defs.map((node, n) => {
    const pointer = `/nodes/${n}`;
    const out: Record<string, unknown> = { name: string(ctx, node.name, `${pointer}/name`) };
    const children = array(ctx, node.children, `${pointer}/children`).map((c, k) => {
      const at = `${pointer}/children/${k}`;
      const child = index(ctx, c, at, defs.length, "node");
      if (child === n) ctx.fail(at, `node ${n} lists itself as its child`);
      if (parent[child] >= 0) {
        ctx.fail(
          at,
          parent[child] === n
            ? `node ${n} lists node ${child} twice as its child`
            : `node ${child} is a child of both node ${
              parent[child]
            } and node ${n}, but a node has at most one parent`,
        );
      }
      parent[child] = n;
      return child;
    });
    if (children.length) out.children = children;
    for (
      const [key, length] of [["translation", 3], ["rotation", 4], ["scale", 3], [
        "matrix",
        16,
      ]] as const
    ) {
      const value = numbers(ctx, node[key], `${pointer}/${key}`, length);
      if (value) out[key] = value;
    }
    if (out.matrix && (out.translation || out.rotation || out.scale)) {
      ctx.fail(
        `${pointer}/matrix`,
        "a node has either a matrix or translation, rotation and scale, not both",
      );
    }
    if (node.mesh !== undefined) {
      out.mesh = index(ctx, node.mesh, `${pointer}/mesh`, meshCount, "mesh");
    }
    if (node.skin !== undefined) {
      out.skin = index(ctx, node.skin, `${pointer}/skin`, skinCount, "skin");
    }
    if (node.weights !== undefined) {
      // The instance's own default weights: one per morph target of its mesh.
      const targets = out.mesh === undefined ? 0 : meshTargets[out.mesh as number];
      if (targets === 0) {
        ctx.fail(`${pointer}/weights`, "the node has weights but no morph targets");
      }
      out.weights = numbers(ctx, node.weights, `${pointer}/weights`, targets);
    }
    return out;
  });
  // One parent each: walking up from any node ends at a root unless there is a cycle.
  const state = new Uint8Array(defs.length); // 0 new, 1 on the current walk, 2 ends at a root
  for (let n = 0; n < defs.length; n++) {
    let at = n;
    while (at >= 0 && state[at] === 0) {
      state[at] = 1;
      at = parent[at];
    }
    if (at >= 0 && state[at] === 1) {
      ctx.fail(`/nodes/${at}`, `node ${at} is its own ancestor: the nodes' children form a cycle`);
    }
    for (at = n; at >= 0 && state[at] === 1; at = parent[at]) state[at] = 2;
  }
  return nodes;
}

/** The skins: unique joints, and inverse bind matrices that cover them. */
export function validateSkins(
  ctx: ImportContext,
  root: JsonObject,
  nodeCount: number,
  accessors: readonly AccessorInfo[],
): JsonObject[] {
  return objects(ctx, root, "skins", "").map((skin, s) => {
    const pointer = `/skins/${s}`;
    const list = array(ctx, skin.joints, `${pointer}/joints`);
    if (list.length === 0) ctx.fail(`${pointer}/joints`, "a skin needs at least one joint");
    if (list.length > MAX_SKIN_JOINTS) {
      ctx.fail(
        `${pointer}/joints`,
        `the skin has ${list.length} joints, at most ${MAX_SKIN_JOINTS} are supported`,
      );
    }
    const seen = new Set<number>();
    const joints = list.map((j, k) => {
      const node = index(ctx, j, `${pointer}/joints/${k}`, nodeCount, "node");
      if (seen.has(node)) {
        ctx.fail(`${pointer}/joints/${k}`, `node ${node} is listed twice as a joint`);
      }
      seen.add(node);
      return node;
    });
    const out: Record<string, unknown> = {
      name: string(ctx, skin.name, `${pointer}/name`),
      joints,
    };
    if (skin.inverseBindMatrices !== undefined) {
      const at = `${pointer}/inverseBindMatrices`;
      const a = index(ctx, skin.inverseBindMatrices, at, accessors.length, "accessor");
      const { type, componentType, count } = accessors[a];
      if (type !== "MAT4" || componentType !== 5126 || count < joints.length) {
        ctx.fail(
          at,
          `the skin's ${joints.length} joints need as many float MAT4 inverse bind matrices, accessor ${a} has ${count} ${type}`,
        );
      }
      out.inverseBindMatrices = a;
    }
    return out;
  });
}

/**
 * The animations: samplers with a float SCALAR input and a known
 * interpolation; channels on joint paths and morph `weights` (which keep
 * their place in the animation's time range). Channels of other targets
 * (`KHR_animation_pointer`'s `"pointer"`) are kept without a target, and
 * a warning.
 */
export function validateAnimations(
  ctx: ImportContext,
  root: JsonObject,
  nodeCount: number,
  accessors: readonly AccessorInfo[],
): JsonObject[] {
  return objects(ctx, root, "animations", "").map((animation, a) => {
    const pointer = `/animations/${a}`;
    const samplers = objects(ctx, animation, "samplers", pointer).map((sampler, k) => {
      const at = `${pointer}/samplers/${k}`;
      const input = index(ctx, sampler.input, `${at}/input`, accessors.length, "accessor");
      const output = index(ctx, sampler.output, `${at}/output`, accessors.length, "accessor");
      if (accessors[input].type !== "SCALAR" || accessors[input].componentType !== 5126) {
        ctx.fail(
          `${at}/input`,
          `key times must be a float SCALAR accessor, accessor ${input} is not`,
        );
      }
      const interpolation = sampler.interpolation ?? "LINEAR";
      if (typeof interpolation !== "string" || !INTERPOLATIONS.includes(interpolation)) {
        ctx.fail(`${at}/interpolation`, `unknown interpolation ${describe(interpolation)}`);
      }
      return { input, output, interpolation };
    });
    const channels: JsonObject[] = [];
    objects(ctx, animation, "channels", pointer).forEach((channel, c) => {
      const at = `${pointer}/channels/${c}`;
      const sampler = index(ctx, channel.sampler, `${at}/sampler`, samplers.length, "sampler");
      const target = object(ctx, channel.target, `${at}/target`);
      const path = target.path;
      if (path === "pointer") {
        // Kept without a target, so that channel indices stay the file's.
        ctx.warnings.push(`${at}: a "pointer" channel (KHR_animation_pointer) is not imported`);
        channels.push({ sampler, target: { path } });
        return;
      }
      if (typeof path !== "string" || !PATHS.includes(path)) {
        ctx.fail(`${at}/target/path`, `unknown animation path ${describe(path)}`);
      }
      const out: Record<string, unknown> = { sampler, target: { path } };
      if (target.node !== undefined) {
        out.target = {
          path,
          node: index(ctx, target.node, `${at}/target/node`, nodeCount, "node"),
        };
      }
      channels.push(out);
    });
    // Of the extras, clip markers are read (gltf/_markers.ts checks them).
    const extras = animation.extras;
    const markers = extras !== null && typeof extras === "object" && !Array.isArray(extras)
      ? { extras: { markers: (extras as JsonObject).markers } }
      : {};
    return {
      name: string(ctx, animation.name, `${pointer}/name`),
      samplers,
      channels,
      ...markers,
    };
  });
}
