import { describe, expect, it } from "vitest";
import { dropFirstScreen } from "./firstScreen";

describe("dropFirstScreen", () => {
  it("removes the edge's drawing and leaves the app's nodes", () => {
    document.body.innerHTML = `<sf-first aria-hidden="true"><img src="/img/banner/1.svg" alt=""></sf-first><div id="app">app</div>`;
    dropFirstScreen();
    expect(document.querySelector("sf-first")).toBeNull();
    expect(document.getElementById("app")?.textContent).toBe("app");
  });
  it("does nothing on a page without one", () => {
    document.body.innerHTML = `<div id="app"></div>`;
    dropFirstScreen();
    expect(document.body.innerHTML).toBe(`<div id="app"></div>`);
  });
});
