import { createContext, useCallback, useContext, useEffect, useState } from "react";
import { applyTheme, readSetting, saveSetting, systemPrefersDark, watchSystem, type Theme, type ThemeSetting } from "~/utils/theme";

type ThemeApi = { setting: ThemeSetting; theme: Theme; setSetting(s: ThemeSetting): void };
const Ctx = createContext<ThemeApi | null>(null);

export function useTheme(): ThemeApi {
  const v = useContext(Ctx);
  if (!v) throw new Error("useTheme outside ThemeProvider");
  return v;
}

/** Keeps the html theme attribute and theme colour in step with the setting and, on auto, the system. */
export function ThemeProvider({ children }: { children: React.ReactNode }) {
  const [setting, setState] = useState<ThemeSetting>(() => readSetting());
  const [systemDark, setSystemDark] = useState(() => systemPrefersDark());
  useEffect(() => {
    const stop = watchSystem(setSystemDark);
    // The system may have flipped between the first render and this subscription.
    setSystemDark(systemPrefersDark());
    return stop;
  }, []);
  const theme = setting === "auto" ? (systemDark ? "dark" : "light") : setting;
  useEffect(() => {
    applyTheme(setting, systemDark);
  }, [setting, systemDark]);
  const setSetting = useCallback((s: ThemeSetting) => {
    saveSetting(s);
    setState(s);
  }, []);
  return <Ctx.Provider value={{ setting, theme, setSetting }}>{children}</Ctx.Provider>;
}
