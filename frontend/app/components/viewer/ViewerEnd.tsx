import { Link } from "react-router";
import { sectionPath } from "~/utils/layout";
import { EpisodeComments } from "~/components/comments/EpisodeComments";
import type { Direction } from "./nav";
import * as s from "./viewer.css";

type Props = {
  pid: string;
  section: string;
  no: number;
  /** the content is not processed yet */
  pending: boolean;
  full: boolean;
  serviceOff: boolean;
  isLogin: boolean;
  hasNext: boolean;
  go: (dir: Direction) => void;
};

/** The end-of-volume panel: why the preview stopped, where to go next, and (a read episode) its comments. */
export function ViewerEnd({ pid, section, no, pending, full, serviceOff, isLogin, hasNext, go }: Props) {
  return (
    <div className={s.end} data-testid="viewer-end">
      {pending && (
        <p className={s.endNote} data-testid="content-pending">
          이 회차의 내용을 준비하고 있습니다. 잠시 후 다시 열어 주세요.
        </p>
      )}
      {!full && (
        <>
          <p className={s.endNote} data-testid="preview-note">
            {serviceOff ? "서비스가 중지되어 전체 보기를 할 수 없습니다." : isLogin ? "미리보기가 끝났습니다." : "로그인하면 이어서 볼 수 있습니다."}
          </p>
          {!serviceOff && (
            <Link className={s.endBtn} to={isLogin ? `/${sectionPath(section)}/detail/${pid}?tab=V` : `/nuxgin?url=${encodeURIComponent(`/viewer?pid=${pid}&no=${no}`)}`}>
              {isLogin ? "구매하고 이어보기" : "로그인"}
            </Link>
          )}
        </>
      )}
      {hasNext && (
        <button type="button" className={s.endBtn} onClick={() => go("N")} data-testid="next-vol">
          다음 화 보기
        </button>
      )}
      <Link className={s.endLink} to={`/${sectionPath(section)}/detail/${pid}?tab=V`}>
        목록으로
      </Link>
      <EpisodeComments pid={pid} vol={no} />
    </div>
  );
}
