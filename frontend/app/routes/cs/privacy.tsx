import { TitleBar } from "~/components/TitleBar/TitleBar";
import { pageTitle } from "~/utils/meta";
import * as s from "~/components/product/cs.css";

export const meta = () => [{ title: pageTitle("개인정보 처리방침") }];

const TEXT = `1. 수집하는 개인정보
회원 가입과 서비스 이용을 위해 이메일, 비밀번호(암호화), 소셜 로그인 식별자, 성인 인증 결과(생년, 인증 여부)를 수집합니다.

2. 이용 목적
작품 구매·대여 내역 관리, 블루머니 충전과 환불, 고객 문의 응대, 부정 이용 방지에 이용합니다.

3. 보관 기간
회원 탈퇴 시 지체 없이 파기합니다. 다만 전자상거래법에 따라 결제 기록은 5년간 보관합니다.

4. 이용자의 권리
언제든지 개인정보 열람, 정정, 삭제, 처리 정지를 요청할 수 있습니다. 고객센터 1:1 문의로 접수해 주세요.`;

export default function Screen() {
  return (
    <section aria-label="개인정보 처리방침">
      <TitleBar title="개인정보 처리방침" />
      <p className={s.text}>{TEXT}</p>
    </section>
  );
}
