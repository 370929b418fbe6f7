import { style } from "@vanilla-extract/css";
import { layout } from "~/styles/tokens";

export const shell = style({ maxWidth: layout.maxWidth, margin: "0 auto", minHeight: "100vh", display: "flex", flexDirection: "column" });
export const main = style({ flex: 1 });
