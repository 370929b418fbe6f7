import { Outlet } from "react-router";

/** The empty layout: the page alone (login, viewer). */
export default function EmptyLayout() {
  return <Outlet />;
}
