import { style } from "@vanilla-extract/css";
import { vars } from "~/styles/theme.css";

export const body = style({ padding: "48px 24px", textAlign: "center", color: vars.color.textSubtle });
