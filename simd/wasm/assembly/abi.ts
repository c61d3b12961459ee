// The core's calling convention, shared word for word by the AssemblyScript
// kernels and the TypeScript side (`simd/abi.ts` re-exports it), so that
// the two cannot disagree. Plain constants only: this file is compiled by
// both AssemblyScript and TypeScript.

/** Words per batch job row (the longest job, padded to 16 bytes). */
export const JOB_WORDS = 16;
/** Bytes per batch job row. */
export const JOB_BYTES = 64;

// Job row fields, as word indices into a row (`u32` words, byte offset
// `word << 2`). Every reader and writer of a row, in AssemblyScript and in
// TypeScript, names its fields with these: no row layout is spelled twice.

/** `firstBeyondBatch` row: the floats' byte offset. */
export const SCAN_PTR = 0;
/** `firstBeyondBatch` row: how many floats. */
export const SCAN_COUNT = 1;
/** `quatToMatBatch` row: the pose read (SoA×4 groups). */
export const QUAT_TO_MAT_POSE = 0;
/** `quatToMatBatch` row: the matrices written. */
export const QUAT_TO_MAT_MATRICES = 1;
/** `matToQuatBatch` row: the matrices read. */
export const MAT_TO_QUAT_MATRICES = 0;
/** `matToQuatBatch` row: the pose written. */
export const MAT_TO_QUAT_POSE = 1;
/** `quatToMatBatch` / `matToQuatBatch` row: the joint count. */
export const CONVERT_COUNT = 2;
/** `copyBlocksBatch` row: the bytes read. */
export const COPY_FROM = 0;
/** `copyBlocksBatch` row: where they are written (not overlapping them). */
export const COPY_TO = 1;
/** `copyBlocksBatch` row: how many bytes. */
export const COPY_BYTES = 2;
/** `localToModelBatch` / `modelToLocalBatch` row: the matrices read. */
export const HIERARCHY_IN = 0;
/** `localToModelBatch` / `modelToLocalBatch` row: the matrices written. */
export const HIERARCHY_OUT = 1;
/** `localToModelBatch` / `modelToLocalBatch` row: the parents (`i16` each). */
export const HIERARCHY_PARENTS = 2;
/** `localToModelBatch` / `modelToLocalBatch` row: the joint count. */
export const HIERARCHY_COUNT = 3;
/** `multiplyMatrices(Checked)Batch` row: the left matrices. */
export const MULTIPLY_A = 0;
/** `multiplyMatrices(Checked)Batch` row: the right matrices. */
export const MULTIPLY_B = 1;
/** `multiplyMatrices(Checked)Batch` row: the products. */
export const MULTIPLY_OUT = 2;
/** `multiplyMatrices(Checked)Batch` row: the matrix count. */
export const MULTIPLY_COUNT = 3;
/** `multiplyMatricesCheckedBatch` row: where to save `a` when the products are all below the limit (0: nowhere). */
export const MULTIPLY_KEEP = 4;
/** `blendPosesBatch` row: the first pose. */
export const BLEND_A = 0;
/** `blendPosesBatch` row: the second pose. */
export const BLEND_B = 1;
/** `blendPosesBatch` row: the blended pose. */
export const BLEND_OUT = 2;
/** `blendPosesBatch` row: the joint count. */
export const BLEND_JOINT_COUNT = 3;
/** `blendPosesBatch` row: the second pose's weight (f32 bits). */
export const BLEND_WEIGHT = 4;
/** `blendLayersBatch` layer row: the pose blended into. */
export const LAYERS_OUT = 0;
/** `blendLayersBatch` layer row: the joint count. */
export const LAYERS_JOINT_COUNT = 1;
/** `blendLayersBatch` layer row: the rest pose. */
export const LAYERS_REST = 2;
/** `blendLayersBatch` layer row: the first layer entry ({@link LAYER_ENTRY_BYTES} each). */
export const LAYERS_ENTRIES = 3;
/** `blendLayersBatch` layer row: how many entries blend. */
export const LAYERS_BLEND_COUNT = 4;
/** `blendLayersBatch` layer row: how many entries add on top. */
export const LAYERS_TOP_COUNT = 5;
/** `blendLayersBatch` layer row: the weight below which a layer is skipped (f32 bits). */
export const LAYERS_THRESHOLD = 6;
/** Layer entry: the layer's pose. */
export const LAYER_ENTRY_POSE = 0;
/** Layer entry: its joint mask. */
export const LAYER_ENTRY_MASK = 1;
/** Layer entry: its weight (f32 bits). */
export const LAYER_ENTRY_WEIGHT = 2;
/** Layer entry: its reference pose (0: the layer overrides). */
export const LAYER_ENTRY_REFERENCE = 3;
/** `sampleCompactBatch` row: the compact clip. */
export const SAMPLE_CLIP = 0;
/** `sampleCompactBatch` row: the playback's cache. */
export const SAMPLE_CACHE = 1;
/** `sampleCompactBatch` row: the sampled pose. */
export const SAMPLE_OUT = 2;
/** `sampleCompactBatch` row: the SoA×4 group count. */
export const SAMPLE_GROUP_COUNT = 3;
/** `sampleCompactBatch` row: the time (f32 bits). */
export const SAMPLE_TIME = 4;
/** `sampleCompactBatch` row: the pose the sample is blended into (0: none). */
export const SAMPLE_BLEND_INTO = 5;
/** `sampleCompactBatch` row: the sample's weight in that blend (f32 bits). */
export const SAMPLE_WEIGHT = 6;
/** `skinPositionsBatch` row: the model matrices. */
export const POSITIONS_MODEL = 0;
/** `skinPositionsBatch` row: the per-influence bases. */
export const POSITIONS_BASES = 1;
/** `skinPositionsBatch` row: the joints (`u16` each). */
export const POSITIONS_JOINTS = 2;
/** `skinPositionsBatch` row: the influence counts (`u8` each). */
export const POSITIONS_COUNTS = 3;
/** `skinPositionsBatch` row: the positions written. */
export const POSITIONS_OUT = 4;
/** `skinPositionsBatch` row: the vertex count. */
export const POSITIONS_VERTEX_COUNT = 5;
/** Skinning row: the palette (linear) or dual-quaternion table. */
export const SKIN_PALETTE = 0;
/** Skinning row: the parts (influences, vertex count: `u32` pairs). */
export const SKIN_PARTS = 1;
/** Skinning row: the part count. */
export const SKIN_PART_COUNT = 2;
/** Skinning row: the joints (`u16` each). */
export const SKIN_JOINTS = 3;
/** Skinning row: the weights (`f32` each). */
export const SKIN_WEIGHTS = 4;
/** Skinning row: the input positions. */
export const SKIN_POSITIONS = 5;
/** Skinning row: the input normals (0: none). */
export const SKIN_NORMALS_IN = 6;
/** Skinning row: the input tangents (0: none). */
export const SKIN_TANGENTS_IN = 7;
/** Skinning row: the positions written. */
export const SKIN_OUT_POSITIONS = 8;
/** Skinning row: the normals written. */
export const SKIN_OUT_NORMALS = 9;
/** Skinning row: the tangents written. */
export const SKIN_OUT_TANGENTS = 10;
/** Skinning row: the flags ({@link SKIN_NORMALS}, {@link SKIN_TANGENTS}, {@link SKIN_RENORMALIZE}). */
export const SKIN_FLAGS = 11;
/** Skinning row: scratch for the palette transposed (0: none; {@link JOINT_COLUMN_BYTES} a joint). */
export const SKIN_COLUMNS = 12;
/** Skinning row: the joints the columns scratch holds. */
export const SKIN_JOINT_COUNT = 13;
/** Bytes of a skinning kernel's bounds output per job: min xyzw, max xyzw (f32). */
export const SKIN_BOUNDS_BYTES = 32;
/**
 * Bytes per joint of a palette transposed by the skinning kernel (its
 * `columns` scratch): the rotation's three columns and the translation,
 * four floats each.
 */
export const JOINT_COLUMN_BYTES = 64;
/** Bytes per joint matrix (3 rows of 4 floats: the palette, model and local matrices). */
export const MATRIX_BYTES = 48;
/**
 * Bytes per joint of a dual-quaternion table: rotation, dual part, scale
 * (s, 1 / s, 2 unused), then the joint's palette rows.
 */
export const DUAL_QUATERNION_JOINT_BYTES = 96;
/** Byte offset of a dual-quaternion table entry's palette rows. */
export const DUAL_QUATERNION_ROWS = 48;
/** Skinning flag: transform normals. */
export const SKIN_NORMALS = 1;
/** Skinning flag: transform tangents (xyz), copying the handedness in w. */
export const SKIN_TANGENTS = 2;
/** Skinning flag: renormalize transformed normals and tangents. */
export const SKIN_RENORMALIZE = 4;
/** Bytes per layer entry of `blendLayersBatch`: pose, mask, weight (f32), reference (0: none). */
export const LAYER_ENTRY_BYTES = 16;
// IK job row fields (word indices; the target, pole, axis, up and offset
// are three f32 each, the weight, soften and twist one).
/** IK row: the chain's model matrices. */
export const IK_MODEL = 0;
/** IK row: its local matrices. */
export const IK_LOCAL = 1;
/** IK row: its parents (`i16` each). */
export const IK_PARENTS = 2;
/** IK row: {@link IK_TWO_BONE}, {@link IK_TWO_BONE_POSE} or {@link IK_AIM}. */
export const IK_KIND = 3;
/** IK row: the start joint (aim: the aiming joint). */
export const IK_START = 4;
/** IK row: the mid joint. */
export const IK_MID = 5;
/** IK row: the end joint. */
export const IK_END = 6;
/** IK row: the last joint of the subtree re-transformed. */
export const IK_LAST = 7;
/** IK row: the target (model space). */
export const IK_TARGET = 8;
/** IK row: the correction's weight. */
export const IK_WEIGHT = 11;
/** IK row: the pole vector. */
export const IK_POLE = 12;
/** IK row: the soften ratio. */
export const IK_SOFTEN = 15;
/** IK row: the hinge axis (two-bone) or forward axis (aim). */
export const IK_AXIS = 16;
/** IK row: the cosine of the twist angle. */
export const IK_TWIST_COS = 19;
/** IK row: the up vector (aim). */
export const IK_UP = 20;
/** IK row: the sine of the twist angle. */
export const IK_TWIST_SIN = 23;
/** IK row: the aiming offset (aim). */
export const IK_OFFSET = 24;
/** IK row (written): 1 when the target was reached. */
export const IK_REACHED = 27;
/** IK row (written): the distance left to the target. */
export const IK_DISTANCE = 28;
/** Words per IK job row: one chain (fields `IK_MODEL` .. `IK_DISTANCE`). */
export const IK_JOB_WORDS = 29;
/** Bytes per IK job row. */
export const IK_JOB_BYTES = 116;
/** IK job kind: two-bone IK (start, mid, end joints) about the row's hinge axis (ozz's). */
export const IK_TWO_BONE = 0;
/**
 * IK job kind: two-bone IK about the bend plane of the pose being solved;
 * the row's axis serves when the limb is straight.
 */
export const IK_TWO_BONE_POSE = 2;
/**
 * A chain reaches its target when, once corrected, the end joint is within
 * this ratio of the chain's length (two-bone: the sum of the bones' lengths;
 * aim: the aiming ray's origin to the target) of the target.
 */
export const IK_REACH_TOLERANCE = 1e-5;
/**
 * Below this sine of the angle between its bones, a two-bone chain is
 * straight: its bend plane is rounding noise, and `IK_TWO_BONE_POSE` takes
 * the row's axis (the rest pose's bend) instead.
 */
export const IK_STRAIGHT_SINE = 1e-4;
/** IK job kind: aim IK (one joint). */
export const IK_AIM = 1;

// Compact clips (`animation/compact_clip.ts`, `simd/wasm/assembly/sample.ts`).
/**
 * Bytes of a compact clip's header: groupCount, trackCount, lanes, tracks
 * offsets, syncCount, syncs offset, timeline entry count, timeline offset,
 * shared key count, shared groups offset (u32 each).
 */
export const CLIP_HEADER_BYTES = 40;
/**
 * Byte offset in a compact clip's header of its shared key count: not 0
 * when every keyed path of the clip is a four-lane sync block of floats
 * (`TRACK_RAW`, span 4) keyed at the same times, this many of them, and
 * every other path holds its value in all four lanes; the sampler then
 * interpolates every group with one weight, straight from the keys.
 */
export const CLIP_SHARED_KEYS = 32;
/**
 * Byte offset in a compact clip's header of its shared group records
 * (shared clips; else 0): per SoA×4 group {@link SHARED_GROUP_BYTES}: the
 * held pose group (160 bytes: the values a playback's cache starts with,
 * read from the clip every playback shares rather than from each cache),
 * then the offsets of the translation, rotation and scale blocks' values
 * (u32 each; 0 for a path held in all four lanes) and flags (u32:
 * {@link SHARED_SLERP}).
 */
export const CLIP_SHARED_GROUPS = 36;
/**
 * Bytes of a shared clip's playback cache: the left key of the interval
 * last sampled (u32), a cursor, and padding. The keys and held values are
 * the clip's, which every playback shares.
 */
export const SHARED_CACHE_BYTES = 16;
/** Bytes of one shared group record ({@link CLIP_SHARED_GROUPS}). */
export const SHARED_GROUP_BYTES = 176;
/** Byte offset in a shared group record of its paths' value offsets (u32 each). */
export const SHARED_GROUP_VALUES = 160;
/** Byte offset in a shared group record of its flags (u32). */
export const SHARED_GROUP_FLAGS = 172;
/**
 * Flag of a shared group record: its rotations interpolate with the slerp
 * correction ({@link SLERP_FIT_C0}); without it they plainly nlerp, which
 * is cheaper and as close to slerp where keys are a few degrees apart.
 */
export const SHARED_SLERP = 1;
/*
 * Shared clips interpolate rotations on slerp's curve without its
 * trigonometry: the frame's weight w becomes, per lane,
 * `w + w (w - 1/2) (w - 1) e ((C0 + C2 s) + e (C1 + C3 s))` with
 * `e = 1 - |dot(left, right)|` and `s = (w - 1/2)^2`, then the lane
 * normalized-lerps. The coefficients are a least-squares fit of the
 * parameter at which nlerp meets slerp, `sin(w a) / (sin(w a) + sin((1 - w) a))`
 * for keys `a` apart (quaternion angle), over a up to 60 degrees: off slerp
 * by 1e-9 rad at 1 degree, 9e-7 at 10, 1.3e-5 at 45 (plain nlerp: 9e-8,
 * 8.5e-5, 8e-3), so that keys need not be inserted where rotations turn
 * fast. Only groups whose rotations need it pay for it ({@link SHARED_SLERP}).
 */
/** Slerp correction of shared clips: coefficient of `e`. */
export const SLERP_FIT_C0 = 0.66262194;
/** Slerp correction of shared clips: coefficient of `e^2`. */
export const SLERP_FIT_C1 = 0.16039256;
/** Slerp correction of shared clips: coefficient of `e s`. */
export const SLERP_FIT_C2 = -0.03642393;
/** Slerp correction of shared clips: coefficient of `e^2 s`. */
export const SLERP_FIT_C3 = 0.77000444;
/**
 * Bytes of one timeline entry (u32): a sync block refilled with the others
 * keyed at the same times, before the group loop: block index in bits
 * 0..15, path in bits 16..17, group in bits 18..31.
 */
export const TIMELINE_ENTRY_BYTES = 4;
/** Bytes of one compact track record: times, values offsets, key count, flags. */
export const TRACK_BYTES = 16;
/** Bytes before a ranged track's keys: min[3] and scale[3] (f32). */
export const TRACK_RANGE_BYTES = 24;
/** Track value format: three or four f32 per key. */
export const TRACK_RAW = 0;
/** Track value format: three u16 per key in the track's range (translation, scale). */
export const TRACK_RANGED = 1;
/** Track value format: smallest-three rotation, three 20-bit fields and the index (u64). */
export const TRACK_SMALLEST_THREE = 2;
/**
 * Value format: smallest-three in three 30-bit fields
 * (12 bytes a key; the dropped index in bits 30..31 of the first word, the
 * negating bit at bit 30 of the second): about f32 precision, for rotations
 * the 20-bit fields cannot keep within their tolerance.
 */
export const TRACK_SMALLEST_THREE_WIDE = 3;
/** Largest value of a 30-bit wide smallest-three field. */
export const SMALLEST_THREE_WIDE_MAX = 1073741823;
/** Track flag: STEP interpolation (hold the left key). */
export const TRACK_STEP = 16;
/**
 * Track flag: a LINEAR rotation track sampled through bisection. Between
 * two keys the sampler halves the arc (the normalized sum of its ends is
 * slerp's midpoint, exactly) until a piece turns by at most
 * {@link BISECT_COSINE}'s angle, at most {@link BISECT_LEVELS} times, and
 * normalized-lerps within the piece holding the time: slerp's curve with
 * nlerp's cost per frame, without storing the subdivision's keys.
 */
export const TRACK_BISECT = 32;
/** Cosine of half the largest angle (0.05 rad) a bisected piece turns by (`cos(0.025)`). */
export const BISECT_COSINE = 0.9996875162757026;
/** Most halvings of a bisected interval: 64 pieces of a half turn are each under 0.05 rad. */
export const BISECT_LEVELS = 6;
/**
 * Bytes of one synchronous block record (the keys of a group path's lanes
 * at shared times): times, values offsets, key count, flags (format, span
 * at bit {@link SYNC_SPAN_SHIFT}, lane mask at bit {@link SYNC_MASK_SHIFT}).
 */
export const SYNC_BYTES = 16;
/** Bit of a sync record's flags where its span (lanes stored per key, 1..4) starts. */
export const SYNC_SPAN_SHIFT = 8;
/** Bit of a sync record's flags where its lane mask (4 bits) starts. */
export const SYNC_MASK_SHIFT = 12;
/** Bytes before a ranged sync block's keys: min[3] and scale[3], one v128 each (per lane). */
export const SYNC_RANGE_BYTES = 96;
/** Bytes of one SoA×4 group of a per-channel clip's starting cache (`animation/_playback_cache.ts`). */
export const CACHE_GROUP_BYTES = 512;
/** Starting cache group offsets: left keys, right keys (pose layout), timing, cursors. */
export const CACHE_RIGHT = 160;
/** Timing of path p at CACHE_TIMING + p * 48: lo[4], hi[4], inv[4]. */
export const CACHE_TIMING = 320;
/** Key cursors of path p at CACHE_CURSORS + p * 16: u32[4]. */
export const CACHE_CURSORS = 464;
/** Bytes before a playback cache's path records: its clip's plan's offset (u32, modulo 2^32). */
export const CACHE_HEADER_BYTES = 16;
/** Path record offsets: lo[4], hi[4], inv[4] (f32) at 0; cursors (u32[4]); left keys. */
export const RECORD_CURSORS = 48;
/** The left keys (pose lanes); the right keys follow, 48 bytes on (rotations: 64). */
export const RECORD_LEFT = 64;
/** Bytes of a translation or scale path record. */
export const VECTOR_RECORD_BYTES = 160;
/** Bytes of a rotation path record. */
export const ROTATION_RECORD_BYTES = 192;
/**
 * Bytes of one SoA×4 group of a clip's plan, which its playbacks share: the held pose group,
 * then each path's record offset in a cache (u32; 0: held in all four lanes, read here).
 */
export const PLAN_GROUP_BYTES = 176;
/** Byte offset in a plan group of its paths' record offsets. */
export const PLAN_RECORDS = 160;
/** A time bound that no finite clip time reaches (the largest f32). */
export const TIME_BOUND = 3.4028234663852886e38;
/** Half the range of a smallest-three component: 1 / sqrt(2). */
export const SMALLEST_THREE_RANGE = 0.7071067811865476;
/** Largest value of a 20-bit smallest-three field. */
export const SMALLEST_THREE_MAX = 1048575;
/** Cursor of a lane that holds no LINEAR interval (held, clamped, STEP). */
export const NO_CURSOR = 0xffffffff;

// Morph targets (`simd/wasm/assembly/morph.ts`, `simd/scalar/morph.ts`).
/**
 * Largest magnitude of a bind-mesh coordinate, and the bound the morph
 * kernel clamps its sums to. With skinning palettes held below the same
 * bound (the skinning systems check), every skinned value stays finite:
 * `4 * 1e18 * 1e18` is far below the f32 limit of 3.4e38.
 */
export const MAX_MESH_MAGNITUDE = 1e18;
/** `morphVertices` target entry: the displacements (4 f32 per vertex moved: x, y, z, 0). */
export const MORPH_DELTAS = 0;
/** `morphVertices` target entry: the vertices moved (`u32` each, increasing), or 0 for a range. */
export const MORPH_INDICES = 1;
/** `morphVertices` target entry: the range's first vertex (when there are no indices). */
export const MORPH_FIRST = 2;
/** `morphVertices` target entry: how many vertices the target moves. */
export const MORPH_COUNT = 3;
/** `morphVertices` target entry: the target's weight (f32 bits). */
export const MORPH_WEIGHT = 4;
/** Bytes per `morphVertices` target entry (five words, padded to 16 bytes). */
export const MORPH_ENTRY_BYTES = 32;
