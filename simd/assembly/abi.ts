// The core's calling convention, shared word for word by the AssemblyScript
// kernels and the TypeScript side (`simd/_abi.ts` re-exports it), so that
// the two cannot disagree. Plain constants only: this file is compiled by
// both AssemblyScript and TypeScript.

/** Words per batch job row (the longest job, padded to 16 bytes). */
export const JOB_WORDS = 16;
/** Bytes per batch job row. */
export const JOB_BYTES = 64;
/**
 * Bytes per joint of a palette transposed by the skinning kernel (its
 * `columns` scratch): the rotation's three columns and the translation,
 * four floats each.
 */
export const JOINT_COLUMN_BYTES = 64;
/** Skinning flag: transform normals. */
export const SKIN_NORMALS = 1;
/** Skinning flag: transform tangents (xyz), copying the handedness in w. */
export const SKIN_TANGENTS = 2;
/** Skinning flag: renormalize transformed normals and tangents. */
export const SKIN_RENORMALIZE = 4;
/** Bytes per layer entry of `blendLayersBatch`: pose, mask, weight (f32), reference (0: none). */
export const LAYER_ENTRY_BYTES = 16;
/** Words per IK job row: one chain (see `simd/_abi.ts` for the fields). */
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

// Compact clips (`animation/compact_clip.ts`, `simd/assembly/sample.ts`).
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
/** Bytes of one SoA×4 group of a playback's sampling cache. */
export const CACHE_GROUP_BYTES = 512;
/** Cache group offsets: left keys, right keys (pose layout), timing, cursors. */
export const CACHE_RIGHT = 160;
/** Timing of path p at CACHE_TIMING + p * 48: lo[4], hi[4], inv[4]. */
export const CACHE_TIMING = 320;
/** Key cursors of path p at CACHE_CURSORS + p * 16: u32[4]. */
export const CACHE_CURSORS = 464;
/** A time bound that no finite clip time reaches (the largest f32). */
export const TIME_BOUND = 3.4028234663852886e38;
/** Half the range of a smallest-three component: 1 / sqrt(2). */
export const SMALLEST_THREE_RANGE = 0.7071067811865476;
/** Largest value of a 20-bit smallest-three field. */
export const SMALLEST_THREE_MAX = 1048575;
/** Cursor of a lane that holds no LINEAR interval (held, clamped, STEP). */
export const NO_CURSOR = 0xffffffff;
