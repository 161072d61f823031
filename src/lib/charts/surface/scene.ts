/**
 * The three.js side of the surface view: renderer, camera, orbit controls, the surface mesh
 * (with a faint wireframe sharing its geometry), floor and wall grid lines, and a hover marker.
 * Imported dynamically by Surface.webgl.svelte only, so three.js is loaded on the research route
 * and nowhere else.
 *
 * Rendering is on demand: a frame is drawn when something changed (data, size, theme, camera,
 * hover); with damping the controls ask for frames until the camera settles, then nothing runs.
 */
import {
	AmbientLight,
	BufferAttribute,
	BufferGeometry,
	Color,
	ColorManagement,
	DirectionalLight,
	DoubleSide,
	DynamicDrawUsage,
	Float32BufferAttribute,
	LinearSRGBColorSpace,
	LineBasicMaterial,
	LineSegments,
	Mesh,
	MeshBasicMaterial,
	MeshLambertMaterial,
	PerspectiveCamera,
	Raycaster,
	Scene,
	Sphere,
	SphereGeometry,
	Spherical,
	Vector2,
	Vector3,
	WebGLRenderer
} from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import type { SurfaceAxes } from './axes';
import type { SurfaceMesh } from './geometry';

// Colours are given as the sRGB the legend shows and written out unconverted, so the mesh, the
// grid lines and the page's CSS colours match exactly.
ColorManagement.enabled = false;

export class WebGLUnavailableError extends Error {}

export interface SceneTheme {
	background: string;
	grid: string;
	wire: string;
	marker: string;
}

/** A point in box coordinates whose screen position the overlay labels follow. */
export type Anchor = [number, number, number];

export interface ProjectedAnchor {
	x: number;
	y: number;
	visible: boolean;
}

export interface SceneCallbacks {
	/** After every drawn frame, with the anchors' screen positions (CSS px in the canvas). */
	onframe?: (anchors: ProjectedAnchor[], frames: number, renderMs: number) => void;
	/** The vertex under the pointer (mouse hover or tap), or null. */
	onhover?: (vertex: number | null) => void;
}

/** Vertex attributes of the surface geometry and the mesh buffers behind them. */
const MESH_ATTRIBUTES = [
	['position', 'positions'],
	['normal', 'normals'],
	['color', 'colors']
] as const;
const HOME = new Vector3(2.55, 1.85, 3.0);
const BOX_BOUNDS = new Sphere(new Vector3(0, 0.5, 0), Math.sqrt(2.25) + 0.01);
const TARGET = new Vector3(0, 0.3, 0);
const TAP_SLOP_PX = 6;

function webglAvailable(canvas: HTMLCanvasElement): string | null {
	try {
		const probe = document.createElement('canvas');
		const gl = probe.getContext('webgl2') ?? probe.getContext('webgl');
		if (!gl) return 'this browser has WebGL turned off or no graphics support for it';
		gl.getExtension('WEBGL_lose_context')?.loseContext();
	} catch (err) {
		return (err as Error).message;
	}
	return canvas.isConnected ? null : 'the canvas is not in the page';
}

export class SurfaceScene {
	readonly renderer: WebGLRenderer;
	private readonly scene = new Scene();
	private readonly camera: PerspectiveCamera;
	private readonly controls: OrbitControls;
	private geometry = new BufferGeometry();
	private readonly surface: Mesh;
	private readonly wire: Mesh;
	private readonly marker: Mesh;
	private readonly gridLines: LineSegments;
	private readonly surfaceMaterial = new MeshLambertMaterial({
		vertexColors: true,
		side: DoubleSide,
		polygonOffset: true,
		polygonOffsetFactor: 1,
		polygonOffsetUnits: 1
	});
	private readonly wireMaterial = new MeshBasicMaterial({
		wireframe: true,
		transparent: true,
		opacity: 0.08
	});
	private readonly gridMaterial = new LineBasicMaterial();
	private readonly markerMaterial = new MeshBasicMaterial();
	private readonly raycaster = new Raycaster();
	private anchors: Anchor[] = [];
	private mesh: SurfaceMesh | undefined;
	private frameRequest = 0;
	private disposed = false;
	private down: { x: number; y: number } | null = null;
	/** The viewer has orbited or zoomed: a resize no longer re-frames the camera. */
	private userMoved = false;
	private readonly cleanups: (() => void)[] = [];
	frames = 0;
	/** How many times a new geometry had to be built (grid size changed). */
	rebuilds = 0;

	constructor(
		private readonly canvas: HTMLCanvasElement,
		private readonly callbacks: SceneCallbacks = {}
	) {
		const why = webglAvailable(canvas);
		if (why) throw new WebGLUnavailableError(why);
		try {
			// preserveDrawingBuffer: the picture stays readable between on-demand frames (tests read
			// it back; a browser's "save image" gets it too).
			this.renderer = new WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
		} catch (err) {
			throw new WebGLUnavailableError((err as Error).message);
		}
		this.renderer.outputColorSpace = LinearSRGBColorSpace;
		this.renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));

		this.camera = new PerspectiveCamera(35, 1, 0.05, 50);
		this.camera.position.copy(HOME);
		this.controls = new OrbitControls(this.camera, canvas);
		this.controls.target.copy(TARGET);
		this.controls.enableDamping = true;
		this.controls.dampingFactor = 0.2;
		this.controls.minDistance = 1.2;
		this.controls.maxDistance = 12;
		this.controls.addEventListener('change', () => this.requestRender());
		this.controls.addEventListener('start', () => (this.userMoved = true));
		this.controls.update();

		// Light intensities are in units of pi since three r155: these keep colours near the legend.
		this.scene.add(new AmbientLight(0xffffff, 0.72 * Math.PI));
		const sun = new DirectionalLight(0xffffff, 0.4 * Math.PI);
		sun.position.set(1.5, 3, 2);
		this.scene.add(sun);

		this.surface = new Mesh(this.geometry, this.surfaceMaterial);
		this.wire = new Mesh(this.geometry, this.wireMaterial);
		this.marker = new Mesh(new SphereGeometry(0.025, 12, 8), this.markerMaterial);
		this.marker.visible = false;
		this.gridLines = new LineSegments(new BufferGeometry(), this.gridMaterial);
		this.scene.add(this.gridLines, this.surface, this.wire, this.marker);

		this.listen(canvas, 'pointermove', (e) => this.onPointerMove(e as PointerEvent));
		this.listen(canvas, 'pointerdown', (e) => {
			const p = e as PointerEvent;
			this.down = { x: p.clientX, y: p.clientY };
		});
		this.listen(canvas, 'pointerup', (e) => this.onPointerUp(e as PointerEvent));
		this.listen(canvas, 'pointerleave', (e) => {
			if ((e as PointerEvent).pointerType === 'mouse') this.hover(null);
		});
		this.listen(canvas, 'webglcontextlost', (e) => e.preventDefault());
		this.listen(canvas, 'webglcontextrestored', () => this.requestRender());
	}

	private listen(target: EventTarget, type: string, fn: (e: Event) => void): void {
		target.addEventListener(type, fn);
		this.cleanups.push(() => target.removeEventListener(type, fn));
	}

	/** Draws the mesh buffers; rebuilds the geometry only when their size changed. */
	setMesh(mesh: SurfaceMesh): void {
		const pos = this.geometry.getAttribute('position') as BufferAttribute | undefined;
		if (pos && pos.array === mesh.positions && this.geometry.index?.array === mesh.indices) {
			// Same buffers, rewritten in place: re-upload them.
			for (const [name] of MESH_ATTRIBUTES) this.geometry.getAttribute(name).needsUpdate = true;
			this.geometry.index.needsUpdate = true;
		} else {
			const geometry = new BufferGeometry();
			for (const [name, field] of MESH_ATTRIBUTES) {
				geometry.setAttribute(name, new BufferAttribute(mesh[field], 3).setUsage(DynamicDrawUsage));
			}
			geometry.setIndex(new BufferAttribute(mesh.indices, 1).setUsage(DynamicDrawUsage));
			this.geometry.dispose();
			this.geometry = geometry;
			this.surface.geometry = geometry;
			this.wire.geometry = geometry;
			this.rebuilds++;
		}
		this.geometry.setDrawRange(0, mesh.indexCount);
		// The mesh always lies in the fixed box (x, z in -1..1, y in 0..1): its bounds, which the
		// raycaster and frustum culling test first, need no pass over the vertices.
		this.geometry.boundingSphere = BOX_BOUNDS.clone();
		this.mesh = mesh;
		this.marker.visible = false;
		this.requestRender();
	}

	/** Floor and back-wall grid lines at the axis ticks, and the label anchors to project. */
	setAxes(axes: SurfaceAxes, anchors: Anchor[]): void {
		const v: number[] = [];
		const seg = (a: Anchor, b: Anchor) => v.push(...a, ...b);
		// Floor outline and ticks.
		seg([-1, 0, -1], [1, 0, -1]);
		seg([-1, 0, 1], [1, 0, 1]);
		seg([-1, 0, -1], [-1, 0, 1]);
		seg([1, 0, -1], [1, 0, 1]);
		for (const t of axes.x) seg([t.at, 0, -1], [t.at, 0, 1]);
		for (const t of axes.z) seg([-1, 0, t.at], [1, 0, t.at]);
		// Back walls with the value ticks.
		seg([-1, 0, -1], [-1, 1, -1]);
		for (const t of axes.y) {
			seg([-1, t.at, -1], [1, t.at, -1]);
			seg([-1, t.at, -1], [-1, t.at, 1]);
		}
		const old = this.gridLines.geometry;
		const geometry = new BufferGeometry();
		geometry.setAttribute('position', new Float32BufferAttribute(v, 3));
		this.gridLines.geometry = geometry;
		old.dispose();
		this.anchors = anchors;
		this.requestRender();
	}

	setTheme(theme: SceneTheme): void {
		this.renderer.setClearColor(new Color(theme.background), 1);
		this.gridMaterial.color.set(theme.grid);
		this.wireMaterial.color.set(theme.wire);
		this.markerMaterial.color.set(theme.marker);
		this.requestRender();
	}

	setSize(width: number, height: number): void {
		if (width <= 0 || height <= 0) return;
		this.renderer.setSize(width, height, false);
		this.camera.aspect = width / height;
		this.camera.updateProjectionMatrix();
		if (!this.userMoved) this.resetView();
		this.requestRender();
	}

	/** The home camera position, further back on narrow (phone) canvases so the box fits. */
	private home(): Vector3 {
		const k = Math.max(0.95, 1.28 / this.camera.aspect);
		return HOME.clone().sub(TARGET).multiplyScalar(k).add(TARGET);
	}

	resetView(): void {
		this.userMoved = false;
		this.camera.position.copy(this.home());
		this.controls.target.copy(TARGET);
		this.controls.update();
		this.requestRender();
	}

	/** Keyboard orbit and zoom: angles in radians, zoom as a distance factor. */
	nudge(azimuth: number, polar: number, zoom = 1): void {
		const offset = this.camera.position.clone().sub(this.controls.target);
		const s = new Spherical().setFromVector3(offset);
		s.theta += azimuth;
		s.phi = Math.min(Math.PI - 0.05, Math.max(0.05, s.phi + polar));
		s.radius = Math.min(
			this.controls.maxDistance,
			Math.max(this.controls.minDistance, s.radius * zoom)
		);
		this.camera.position.copy(this.controls.target).add(new Vector3().setFromSpherical(s));
		this.camera.lookAt(this.controls.target);
		this.controls.update();
		this.requestRender();
	}

	/** Highlights a vertex (or hides the marker) and tells the page. */
	hover(vertex: number | null): void {
		if (vertex === null || !this.mesh) {
			if (this.marker.visible) {
				this.marker.visible = false;
				this.requestRender();
			}
			this.callbacks.onhover?.(null);
			return;
		}
		const p = this.mesh.positions;
		this.marker.position.set(p[vertex * 3], p[vertex * 3 + 1], p[vertex * 3 + 2]);
		this.marker.visible = true;
		this.requestRender();
		this.callbacks.onhover?.(vertex);
	}

	/** The grid vertex nearest the surface point under (clientX, clientY), or null. */
	pick(clientX: number, clientY: number): number | null {
		if (!this.mesh || this.mesh.indexCount === 0) return null;
		const rect = this.canvas.getBoundingClientRect();
		const ndc = new Vector2(
			((clientX - rect.left) / rect.width) * 2 - 1,
			-((clientY - rect.top) / rect.height) * 2 + 1
		);
		this.raycaster.setFromCamera(ndc, this.camera);
		const hit = this.raycaster.intersectObject(this.surface, false)[0];
		if (!hit?.face) return null;
		const p = this.mesh.positions;
		let best = hit.face.a;
		let bestD = Infinity;
		for (const v of [hit.face.a, hit.face.b, hit.face.c]) {
			const d = hit.point.distanceToSquared(new Vector3(p[v * 3], p[v * 3 + 1], p[v * 3 + 2]));
			if (d < bestD) {
				bestD = d;
				best = v;
			}
		}
		return best;
	}

	private onPointerMove(e: PointerEvent): void {
		// Touch and pen pick on tap; a mouse picks while it hovers without a button held.
		if (e.pointerType !== 'mouse' || e.buttons !== 0) return;
		this.hover(this.pick(e.clientX, e.clientY));
	}

	private onPointerUp(e: PointerEvent): void {
		const d = this.down;
		this.down = null;
		if (!d || Math.hypot(e.clientX - d.x, e.clientY - d.y) > TAP_SLOP_PX) return;
		this.hover(this.pick(e.clientX, e.clientY));
	}

	requestRender(): void {
		if (this.disposed || this.frameRequest) return;
		this.frameRequest = requestAnimationFrame(() => {
			this.frameRequest = 0;
			this.render();
		});
	}

	/** Draws one frame now; damping asks for the next until the camera settles. */
	render(): void {
		if (this.disposed) return;
		const started = performance.now();
		const moving = this.controls.update();
		this.renderer.render(this.scene, this.camera);
		const renderMs = performance.now() - started;
		this.frames++;
		if (this.callbacks.onframe) {
			const rect = this.canvas.getBoundingClientRect();
			const v = new Vector3();
			this.callbacks.onframe(
				this.anchors.map(([x, y, z]) => {
					v.set(x, y, z).project(this.camera);
					return {
						x: ((v.x + 1) / 2) * rect.width,
						y: ((1 - v.y) / 2) * rect.height,
						visible: v.z < 1 && Math.abs(v.x) <= 1.05 && Math.abs(v.y) <= 1.05
					};
				}),
				this.frames,
				renderMs
			);
		}
		if (moving) this.requestRender();
	}

	dispose(): void {
		this.disposed = true;
		if (this.frameRequest) cancelAnimationFrame(this.frameRequest);
		for (const c of this.cleanups) c();
		this.controls.dispose();
		this.geometry.dispose();
		this.gridLines.geometry.dispose();
		this.marker.geometry.dispose();
		this.surfaceMaterial.dispose();
		this.wireMaterial.dispose();
		this.gridMaterial.dispose();
		this.markerMaterial.dispose();
		this.renderer.dispose();
		// Frees the GPU context now rather than when the garbage collector finds the canvas.
		this.renderer.forceContextLoss();
	}
}
