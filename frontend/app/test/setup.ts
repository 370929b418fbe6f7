import { afterEach } from "vitest";
import { cleanup } from "@testing-library/react";

afterEach(() => {
  cleanup();
  document.cookie.split("; ").forEach((c) => {
    const k = c.split("=")[0];
    if (k) document.cookie = `${k}=; path=/; max-age=0`;
  });
  localStorage.clear();
  sessionStorage.clear();
});
