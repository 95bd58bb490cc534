/**
 * Shapes for the canvas demo.
 */
import { draw } from "./canvas.js";

/** The default stroke width. */
export const STROKE = 2;

export class Shape {
  constructor(x, y) {
    this.x = x;
    this.y = y;
  }

  /** Moves the shape by dx, dy. */
  move(dx, dy) {
    return new this.constructor(this.x + dx, this.y + dy);
  }

  static get origin() {
    return new Shape(0, 0);
  }
}

export class Circle extends Shape {
  constructor(x, y, r) {
    super(x, y);
    this.r = r;
  }

  area() {
    return Math.PI * this.r ** 2;
  }
}

/** Renders every shape. */
export function render(shapes, ctx) {
  shapes.forEach((s) => draw(ctx, s));
}

const scale = (shape, k) => ({ ...shape, r: shape.r * k });

function* grid(n) {
  for (let i = 0; i < n; i++) yield new Shape(i, i);
}

export const Badge = ({ label }) => <span className="badge">{label}</span>;
