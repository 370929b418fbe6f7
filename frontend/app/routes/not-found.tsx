import { ErrorPage } from "~/components/ErrorPage/ErrorPage";
import { NOT_FOUND_TEXT } from "~/utils/errors";
import { pageTitle } from "~/utils/meta";

export const meta = () => [{ title: pageTitle("페이지를 찾을 수 없습니다") }];

/** Unmatched route (seed §2). */
export default function NotFound() {
  return <ErrorPage status={404} message={NOT_FOUND_TEXT} />;
}
