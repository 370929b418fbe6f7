import { render, screen, waitFor } from "@testing-library/react";
import { renderToStaticMarkup } from "react-dom/server";
import { MemoryRouter } from "react-router";
import { describe, expect, it } from "vitest";
import { HomeShelves } from "./HomeShelves";

const home = {
  banners: [],
  sections: Array.from({ length: 8 }, (_, i) => ({ key: `s${i}`, title: `선반 ${i + 1}`, moreUrl: "/webtoon/genre/all", list: [] })),
};

const titles = (html: string) => home.sections.filter((s) => html.includes(s.title)).length;

describe("HomeShelves: the first load renders in steps, later visits at once", () => {
  it("the app's first render holds only the first shelves (no effects have run)", () => {
    expect(titles(renderToStaticMarkup(<MemoryRouter><HomeShelves home={home} /></MemoryRouter>))).toBe(2);
  });

  it("the rest follow without anything else happening", async () => {
    render(<MemoryRouter><HomeShelves home={home} /></MemoryRouter>);
    await waitFor(() => expect(screen.getByText("선반 8")).toBeTruthy());
    expect(titles(document.body.innerHTML)).toBe(8);
  });

  it("a later visit renders every shelf in its first render, so scroll restoration finds the page's height", () => {
    expect(titles(renderToStaticMarkup(<MemoryRouter><HomeShelves home={home} /></MemoryRouter>))).toBe(8);
  });
});
