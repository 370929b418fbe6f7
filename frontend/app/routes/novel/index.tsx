import { useLoaderData } from "react-router";
import { AreaHome, areaLoader, areaMeta } from "~/components/product/AreaHome";

export const meta = areaMeta("novel");
export const clientLoader = areaLoader("novel");

export default function Screen() {
  return <AreaHome area="novel" home={useLoaderData<typeof clientLoader>()} />;
}
