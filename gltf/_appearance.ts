/**
 * The file's appearance as plain data for a renderer: materials, textures,
 * samplers and images, and each primitive's material. Marrow never reads
 * or decodes an image: an image is handed out as a `data:` URI, as the
 * bytes of its buffer view, or as a URI relative to the model's folder
 * that the loader's own confinement rule keeps inside it; any other is
 * left out and marked refused, so that the loader is no deputy for a path
 * it would not read itself.
 *
 * Appearance is not what Marrow animates: a field of the wrong type or
 * out of range falls back to glTF's default, with a warning naming its
 * JSON pointer, instead of refusing the file.
 *
 * @module
 */

import type { ImportContext } from "./_context.ts";
import { confineUri, ReadRefusal } from "./_confine.ts";
import { describe, type JsonObject } from "./_json.ts";
import type {
  GltfAppearance,
  GltfImage,
  GltfMaterial,
  GltfSampler,
  GltfTexture,
  GltfTextureRef,
} from "./types.ts";

const ALPHA_MODES = ["OPAQUE", "MASK", "BLEND"] as const;
const FILTERS = [9728, 9729, 9984, 9985, 9986, 9987];
const WRAPS = [33071, 33648, 10497];

/** Reads of one list's entries that warn and fall back instead of failing. */
class Lenient {
  constructor(readonly ctx: ImportContext) {}

  warn(pointer: string, message: string): void {
    this.ctx.warnings.push(`${pointer}: ${message}; ignored`);
  }

  /** The objects of `root[key]`, counted against the file's object limit; a non-object entry is `{}`. */
  list(root: JsonObject, key: string): JsonObject[] {
    const value = root[key];
    if (value === undefined) return [];
    if (!Array.isArray(value)) {
      this.warn(`/${key}`, `expected an array, found ${describe(value)}`);
      return [];
    }
    this.ctx.countList(key, value.length, `/${key}`);
    return value.map((entry, i) => {
      if (typeof entry === "object" && entry !== null && !Array.isArray(entry)) return entry;
      this.warn(`/${key}/${i}`, `expected a JSON object, found ${describe(entry)}`);
      return {};
    });
  }

  object(value: unknown, pointer: string): JsonObject | undefined {
    if (value === undefined) return undefined;
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      return value as JsonObject;
    }
    this.warn(pointer, `expected a JSON object, found ${describe(value)}`);
    return undefined;
  }

  number(value: unknown, pointer: string, fallback: number, min: number, max: number): number {
    if (value === undefined) return fallback;
    if (typeof value === "number" && value >= min && value <= max) return value;
    this.warn(pointer, `expected a number in ${min}..${max}, found ${describe(value)}`);
    return fallback;
  }

  /** An index into a list of `count`, or -1 (absent or out of range). */
  index(value: unknown, pointer: string, count: number, what: string): number {
    if (value === undefined) return -1;
    if (typeof value === "number" && Number.isInteger(value) && value >= 0 && value < count) {
      return value;
    }
    this.warn(pointer, `refers to ${what} ${describe(value)}, but the file has ${count}`);
    return -1;
  }

  string(value: unknown, pointer: string): string {
    if (value === undefined) return "";
    if (typeof value === "string") return value;
    this.warn(pointer, `expected a string, found ${describe(value)}`);
    return "";
  }

  color<N extends 3 | 4>(value: unknown, pointer: string, length: N): number[] {
    const fallback = new Array<number>(length).fill(length === 3 ? 0 : 1);
    if (value === undefined) return fallback;
    if (
      Array.isArray(value) && value.length === length &&
      value.every((c) => typeof c === "number" && c >= 0 && c <= 1)
    ) return value as number[];
    this.warn(pointer, `expected ${length} numbers in 0..1, found ${describe(value)}`);
    return fallback;
  }

  oneOf<T>(value: unknown, pointer: string, options: readonly T[]): T | undefined {
    if (value === undefined) return undefined;
    if (options.includes(value as T)) return value as T;
    this.warn(pointer, `expected one of ${options.join(", ")}, found ${describe(value)}`);
    return undefined;
  }
}

/** A texture reference of a material, or undefined when absent or unusable. */
function textureRef(
  read: Lenient,
  value: unknown,
  pointer: string,
  textures: number,
  extra?: "scale" | "strength",
): GltfTextureRef | undefined {
  const info = read.object(value, pointer);
  if (!info) return undefined;
  const texture = read.index(info.index, `${pointer}/index`, textures, "texture");
  if (texture < 0) return undefined;
  const ref = {
    texture,
    texCoord: read.number(info.texCoord, `${pointer}/texCoord`, 0, 0, 7),
  };
  if (!extra) return ref;
  const fallback = 1, at = `${pointer}/${extra}`;
  return {
    ...ref,
    [extra]: extra === "strength"
      ? read.number(info[extra], at, fallback, 0, 1)
      : read.number(info[extra], at, fallback, -1e6, 1e6),
  };
}

function material(read: Lenient, m: JsonObject, pointer: string, textures: number): GltfMaterial {
  const pbr = read.object(m.pbrMetallicRoughness, `${pointer}/pbrMetallicRoughness`) ?? {};
  const at = `${pointer}/pbrMetallicRoughness`;
  const ref = (value: unknown, key: string, extra?: "scale" | "strength") =>
    textureRef(read, value, key, textures, extra);
  const out: Record<string, unknown> = {
    name: read.string(m.name, `${pointer}/name`),
    baseColorFactor: read.color(pbr.baseColorFactor, `${at}/baseColorFactor`, 4),
    baseColorTexture: ref(pbr.baseColorTexture, `${at}/baseColorTexture`),
    metallicFactor: read.number(pbr.metallicFactor, `${at}/metallicFactor`, 1, 0, 1),
    roughnessFactor: read.number(pbr.roughnessFactor, `${at}/roughnessFactor`, 1, 0, 1),
    metallicRoughnessTexture: ref(pbr.metallicRoughnessTexture, `${at}/metallicRoughnessTexture`),
    normalTexture: ref(m.normalTexture, `${pointer}/normalTexture`, "scale"),
    occlusionTexture: ref(m.occlusionTexture, `${pointer}/occlusionTexture`, "strength"),
    emissiveTexture: ref(m.emissiveTexture, `${pointer}/emissiveTexture`),
    emissiveFactor: read.color(m.emissiveFactor, `${pointer}/emissiveFactor`, 3),
    alphaMode: read.oneOf(m.alphaMode, `${pointer}/alphaMode`, ALPHA_MODES) ?? "OPAQUE",
    alphaCutoff: read.number(m.alphaCutoff, `${pointer}/alphaCutoff`, 0.5, 0, 1e6),
    doubleSided: m.doubleSided === true,
  };
  if (m.doubleSided !== undefined && typeof m.doubleSided !== "boolean") {
    read.warn(`${pointer}/doubleSided`, `expected a boolean, found ${describe(m.doubleSided)}`);
  }
  for (const key of Object.keys(out)) if (out[key] === undefined) delete out[key];
  return Object.freeze(out) as unknown as GltfMaterial;
}

/** The buffer view bytes a reader gives the appearance: a view's bytes, already checked in range. */
type BufferViewBytes = (view: number) => Uint8Array;

function image(
  read: Lenient,
  i: JsonObject,
  pointer: string,
  views: number,
  viewBytes: BufferViewBytes,
): GltfImage {
  const name = read.string(i.name, `${pointer}/name`);
  const mimeType = read.oneOf(i.mimeType, `${pointer}/mimeType`, ["image/png", "image/jpeg"]);
  const typed = mimeType === undefined ? {} : { mimeType };
  if (i.bufferView !== undefined) {
    const view = read.index(i.bufferView, `${pointer}/bufferView`, views, "buffer view");
    if (view < 0) return { name, refused: "its buffer view does not exist" };
    return { name, ...typed, bytes: viewBytes(view) };
  }
  if (typeof i.uri !== "string") {
    read.warn(`${pointer}/uri`, `expected a string, found ${describe(i.uri)}`);
    return { name, refused: "it has neither a URI nor a buffer view" };
  }
  if (i.uri.startsWith("data:")) {
    if (/^data:image\/(png|jpeg);base64,/i.test(i.uri)) return { name, ...typed, uri: i.uri };
    return { name, refused: "a data: URI that is not a base64 PNG or JPEG image" };
  }
  try {
    return { name, ...typed, uri: confineUri(i.uri) };
  } catch (e) {
    if (!(e instanceof ReadRefusal)) throw e;
    return { name, refused: e.message };
  }
}

/**
 * The appearance of the file whose JSON is `root`, and the material of
 * each primitive (`primitiveMaterials[mesh][primitive]`, -1 for none).
 */
export function readAppearance(
  ctx: ImportContext,
  root: JsonObject,
  viewCount: number,
  viewBytes: BufferViewBytes,
): GltfAppearance & { readonly primitiveMaterials: readonly (readonly number[])[] } {
  const read = new Lenient(ctx);
  const imageList = read.list(root, "images"), samplerList = read.list(root, "samplers");
  const textureList = read.list(root, "textures"), materialList = read.list(root, "materials");
  const samplers: GltfSampler[] = samplerList.map((s, i) => {
    const at = `/samplers/${i}`;
    const out: Record<string, number | undefined> = {
      magFilter: read.oneOf(s.magFilter, `${at}/magFilter`, FILTERS.slice(0, 2)),
      minFilter: read.oneOf(s.minFilter, `${at}/minFilter`, FILTERS),
      wrapS: read.oneOf(s.wrapS, `${at}/wrapS`, WRAPS) ?? 10497,
      wrapT: read.oneOf(s.wrapT, `${at}/wrapT`, WRAPS) ?? 10497,
    };
    for (const key of Object.keys(out)) if (out[key] === undefined) delete out[key];
    return Object.freeze(out) as unknown as GltfSampler;
  });
  const textures: GltfTexture[] = textureList.map((t, i) =>
    Object.freeze({
      sampler: read.index(t.sampler, `/textures/${i}/sampler`, samplers.length, "sampler"),
      image: read.index(t.source, `/textures/${i}/source`, imageList.length, "image"),
    })
  );
  const images = imageList.map((i, n) =>
    Object.freeze(image(read, i, `/images/${n}`, viewCount, viewBytes))
  );
  const materials = materialList.map((m, i) =>
    material(read, m, `/materials/${i}`, textures.length)
  );
  const meshes = Array.isArray(root.meshes) ? root.meshes as JsonObject[] : [];
  const primitiveMaterials = meshes.map((mesh, m) =>
    (Array.isArray(mesh?.primitives) ? mesh.primitives as JsonObject[] : []).map((p, i) =>
      read.index(p?.material, `/meshes/${m}/primitives/${i}/material`, materials.length, "material")
    )
  );
  return {
    materials: Object.freeze(materials),
    textures: Object.freeze(textures),
    samplers: Object.freeze(samplers),
    images: Object.freeze(images),
    primitiveMaterials,
  };
}
