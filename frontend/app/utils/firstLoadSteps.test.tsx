import { render, screen, waitFor } from "@testing-library/react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { useFirstLoadSteps } from "./firstLoadSteps";

function Parts({ screen: name, total, all }: { screen: string; total: number; all?: boolean }) {
  const n = useFirstLoadSteps(name, total, 6, 6, all);
  return (
    <ul>
      {Array.from({ length: n }, (_, i) => (
        <li key={i}>part {i + 1}</li>
      ))}
    </ul>
  );
}

const count = (html: string) => (html.match(/<li>/g) ?? []).length;

describe("useFirstLoadSteps: a screen's first show draws its list in steps, later shows at once", () => {
  it("the first render holds only the first parts (no effects have run)", () => {
    expect(count(renderToStaticMarkup(<Parts screen="a" total={24} />))).toBe(6);
    expect(count(renderToStaticMarkup(<Parts screen="a" total={4} />))).toBe(4);
  });

  it("the rest follow without anything else happening", async () => {
    render(<Parts screen="a" total={24} />);
    await waitFor(() => expect(screen.getByText("part 24")).toBeTruthy());
    expect(count(document.body.innerHTML)).toBe(24);
  });

  it("once shown whole, the screen draws everything in its first render", () => {
    expect(count(renderToStaticMarkup(<Parts screen="a" total={24} />))).toBe(24);
    expect(count(renderToStaticMarkup(<Parts screen="b" total={24} />))).toBe(6);
  });

  it("a list grown after it was shown whole (a further page) is drawn at once", async () => {
    const { rerender } = render(<Parts screen="d" total={12} />);
    await waitFor(() => expect(screen.getByText("part 12")).toBeTruthy());
    rerender(<Parts screen="d" total={36} />);
    expect(screen.getByText("part 36")).toBeTruthy();
  });

  it("a place to restore draws everything at once, on the first show too", () => {
    expect(count(renderToStaticMarkup(<Parts screen="c" total={24} all />))).toBe(24);
  });
});
