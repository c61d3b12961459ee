/// <reference lib="dom" />
/**
 * The web page's crowd mode: {@linkcode CrowdScene}'s thousands of small
 * characters seen from above, each drawn from its zero-copy views (one
 * draw call per visible character; one index buffer and one material per
 * level of detail band shared by all), so the bands show as rings of
 * colour round the circling viewpoint (the yellow marker): nearest the
 * full-rate band, then every 2nd frame, then every 4th frame with one
 * influence; culled characters are not skinned and not drawn.
 *
 * @module
 */

import * as THREE from "three";
import type { CoreBuild } from "../../kernels.ts";
import { CROWD_BANDS, CROWD_SPACING, CrowdScene } from "../crowd_scene.ts";
import { refresh, streamBuffer } from "./_streams.ts";

/** The bands' colours, nearest first. */
const BAND_COLOURS = [0xf2e6d0, 0x6fa8dc, 0x8e6fd8];

/** A crowd on screen: its scene, its meshes and the GPU buffers over its views. */
export class CrowdView {
  readonly crowd: CrowdScene;
  readonly group: THREE.Group = new THREE.Group();
  /** Per character: the interleaved buffers over its positions and normals views. */
  readonly #buffers: { positions: THREE.InterleavedBuffer; normals: THREE.InterleavedBuffer }[] =
    [];
  readonly #meshes: THREE.Mesh[] = [];
  readonly #materials = BAND_COLOURS.map((color) =>
    new THREE.MeshStandardMaterial({ color, roughness: 0.7 })
  );
  readonly #marker = new THREE.Mesh(
    new THREE.SphereGeometry(1, 16, 8),
    new THREE.MeshBasicMaterial({ color: 0xffd54a }),
  );
  readonly #direct: boolean;

  /** `count` characters on a core of `build`, added to `scene`. */
  constructor(scene: THREE.Scene, count: number, build: CoreBuild) {
    const crowd = this.crowd = new CrowdScene(count, build);
    crowd.frame(0);
    // Views of a resizable buffer (those that survive growth) are refused by WebGL.
    this.#direct = !crowd.core.viewsSurviveGrowth;
    const indices = new THREE.BufferAttribute(crowd.skin.remapIndices(crowd.indices, 0), 1);
    crowd.entities.forEach((eid, i) => {
      const positions = streamBuffer(crowd.positions(i), this.#direct);
      const normals = streamBuffer(crowd.normals(i), this.#direct);
      this.#buffers.push({ positions, normals });
      const geometry = new THREE.BufferGeometry();
      geometry.setAttribute("position", new THREE.InterleavedBufferAttribute(positions, 3, 0));
      geometry.setAttribute("normal", new THREE.InterleavedBufferAttribute(normals, 3, 0));
      geometry.setIndex(indices);
      const mesh = new THREE.Mesh(geometry, this.#materials[0]);
      mesh.frustumCulled = false; // skinned output moves; bounds would go stale
      mesh.userData = { entity: eid };
      mesh.position.set(crowd.places[i * 2], 0, crowd.places[i * 2 + 1]);
      this.#meshes.push(mesh);
      this.group.add(mesh);
    });
    this.#marker.scale.setScalar(CROWD_SPACING * 0.4);
    this.group.add(this.#marker);
    scene.add(this.group);
  }

  /** Looks down on the whole crowd from above and to the side. */
  placeCamera(camera: THREE.PerspectiveCamera): void {
    const width = Math.sqrt(this.crowd.entities.length) * CROWD_SPACING;
    camera.position.set(0, width * 0.9, width * 0.75);
    camera.lookAt(0, 0, 0);
    camera.near = width / 1000;
    camera.far = width * 20;
    camera.updateProjectionMatrix();
  }

  /**
   * Advances the crowd by `deltaSeconds` (each system's milliseconds added
   * to `times`), then shows each character in its band's colour, or not
   * at all when culled; `upload` gets the milliseconds of the views' upload.
   */
  frame(deltaSeconds: number, times: Map<string, number>, upload: string): void {
    const crowd = this.crowd;
    crowd.frame(deltaSeconds, times);
    const start = performance.now();
    const [x, y, z] = crowd.camera;
    this.#marker.position.set(x, y, z);
    this.#meshes.forEach((mesh, i) => {
      const band = crowd.bands[i];
      mesh.visible = band < CROWD_BANDS.length;
      if (!mesh.visible) return;
      mesh.material = this.#materials[band];
      refresh(this.#buffers[i].positions, crowd.positions(i), this.#direct);
      refresh(this.#buffers[i].normals, crowd.normals(i), this.#direct);
    });
    times.set(upload, (times.get(upload) ?? 0) + performance.now() - start);
  }

  /** Characters drawn (not culled). */
  get drawn(): number {
    return this.#meshes.filter((mesh) => mesh.visible).length;
  }

  /** Removes the crowd from `scene` and gives its memory back. */
  dispose(scene: THREE.Scene): void {
    scene.remove(this.group);
    for (const mesh of this.#meshes) mesh.geometry.dispose();
    for (const material of this.#materials) material.dispose();
    this.#marker.geometry.dispose();
    this.crowd.dispose();
  }
}
