// The sandbox's page texts in English, Sinhala and Tamil. The English labels are a contract
// (DESIGN.md): browser tests find the fields by them.
import type { Locale } from '../../domain/locale';

const en = {
  title: 'Sandbox card payment',
  banner: 'Sandbox: test cards only, no money moves.',
  payTo: 'Payment to',
  cardNumber: 'Card number',
  expiry: 'Expiry (MM/YY)',
  cvv: 'CVV',
  pay: 'Pay',
  testCards: 'Test cards: 5123 4500 0000 0008 (Mastercard), 4111 1111 1111 1111 (Visa), 3782 822463 10005 (American Express, CVV 1000). CVV 100. Expiry 01/39 approves, 05/39 declines, 04/27 is an expired card, 06/39 has insufficient funds, 07/39 approves here and declines every charge made later without the customer (renewals), 08/39 approves but the card cannot be kept for later charges, 09/39 approves and every refund of it fails. Any other expiry approves, or is an expired card once past.',
  threeDsTitle: '3-D Secure',
  threeDsText: 'Your bank asks you to confirm this payment. In the sandbox, choose the result.',
  authenticate: 'Authenticate',
  failAuthentication: 'Fail authentication',
  invalidNumber: 'Enter a valid card number.',
  notTestCard: 'The sandbox accepts only its test cards.',
  invalidExpiry: 'Enter the expiry as MM/YY.',
  invalidCvv: 'The CVV is not correct: 100, or 1000 for American Express.',
  canceled: 'This payment session was canceled.',
  back: 'Return to the shop',
};
export type Messages = typeof en;

const si: Messages = {
  title: 'සෑන්ඩ්බොක්ස් කාඩ් ගෙවීම',
  banner: 'සෑන්ඩ්බොක්ස්: පරීක්ෂණ කාඩ් පමණි, මුදල් ගෙවෙන්නේ නැත.',
  payTo: 'ගෙවීම ලබන්නා',
  cardNumber: 'කාඩ් අංකය',
  expiry: 'කල් ඉකුත් වීම (MM/YY)',
  cvv: 'CVV',
  pay: 'ගෙවන්න',
  testCards: 'පරීක්ෂණ කාඩ්: 5123 4500 0000 0008 (Mastercard), 4111 1111 1111 1111 (Visa), 3782 822463 10005 (American Express, CVV 1000). CVV 100. 01/39 අනුමතයි, 05/39 ප්‍රතික්ෂේපයි, 04/27 කල් ඉකුත් වූ කාඩ්පතකි, 06/39 ප්‍රමාණවත් මුදල් නැත, 07/39 මෙහි අනුමතයි, පසුව පාරිභෝගිකයා නොමැතිව කරන සෑම අයකිරීමක්ම (අලුත් කිරීම්) ප්‍රතික්ෂේපයි, 08/39 අනුමතයි නමුත් පසු අයකිරීම් සඳහා කාඩ්පත තබා ගත නොහැක, 09/39 අනුමතයි, එහි සෑම මුදල් ආපසු ගෙවීමක්ම අසාර්ථකයි. වෙනත් ඕනෑම කල් ඉකුත් දිනයක් අනුමතයි, එය පසු වූ පසු කල් ඉකුත් වූ කාඩ්පතකි.',
  threeDsTitle: '3-D Secure',
  threeDsText: 'ඔබේ බැංකුව මෙම ගෙවීම තහවුරු කිරීමට ඉල්ලයි. සෑන්ඩ්බොක්ස් තුළ ප්‍රතිඵලය තෝරන්න.',
  authenticate: 'සත්‍යාපනය කරන්න',
  failAuthentication: 'සත්‍යාපනය අසාර්ථක කරන්න',
  invalidNumber: 'වලංගු කාඩ් අංකයක් ඇතුළත් කරන්න.',
  notTestCard: 'සෑන්ඩ්බොක්ස් එහි පරීක්ෂණ කාඩ් පමණක් පිළිගනී.',
  invalidExpiry: 'කල් ඉකුත් වීම MM/YY ලෙස ඇතුළත් කරන්න.',
  invalidCvv: 'CVV වැරදියි: 100, American Express සඳහා 1000.',
  canceled: 'මෙම ගෙවීම් සැසිය අවලංගු කර ඇත.',
  back: 'වෙළඳසැලට ආපසු යන්න',
};

const ta: Messages = {
  title: 'சாண்ட்பாக்ஸ் அட்டை கட்டணம்',
  banner: 'சாண்ட்பாக்ஸ்: சோதனை அட்டைகள் மட்டும், பணம் நகராது.',
  payTo: 'கட்டணம் பெறுபவர்',
  cardNumber: 'அட்டை எண்',
  expiry: 'காலாவதி (MM/YY)',
  cvv: 'CVV',
  pay: 'செலுத்து',
  testCards: 'சோதனை அட்டைகள்: 5123 4500 0000 0008 (Mastercard), 4111 1111 1111 1111 (Visa), 3782 822463 10005 (American Express, CVV 1000). CVV 100. 01/39 ஏற்கப்படும், 05/39 நிராகரிக்கப்படும், 04/27 காலாவதியான அட்டை, 06/39 போதிய நிதி இல்லை, 07/39 இங்கே ஏற்கப்படும், பின்னர் வாடிக்கையாளர் இல்லாமல் செய்யப்படும் ஒவ்வொரு கட்டணமும் (புதுப்பித்தல்கள்) நிராகரிக்கப்படும், 08/39 ஏற்கப்படும் ஆனால் பின்னர் வசூலிக்க அட்டையை வைத்திருக்க முடியாது, 09/39 ஏற்கப்படும், அதன் ஒவ்வொரு பணத்திருப்பமும் தோல்வியடையும். வேறு எந்தக் காலாவதியும் ஏற்கப்படும்; அது கடந்த பின் காலாவதியான அட்டை.',
  threeDsTitle: '3-D Secure',
  threeDsText: 'இந்தக் கட்டணத்தை உறுதிப்படுத்த உங்கள் வங்கி கேட்கிறது. சாண்ட்பாக்ஸில் முடிவைத் தேர்ந்தெடுக்கவும்.',
  authenticate: 'அங்கீகரி',
  failAuthentication: 'அங்கீகாரத்தைத் தோல்வியாக்கு',
  invalidNumber: 'சரியான அட்டை எண்ணை உள்ளிடவும்.',
  notTestCard: 'சாண்ட்பாக்ஸ் அதன் சோதனை அட்டைகளை மட்டுமே ஏற்கும்.',
  invalidExpiry: 'காலாவதியை MM/YY என உள்ளிடவும்.',
  invalidCvv: 'CVV தவறானது: 100, American Express க்கு 1000.',
  canceled: 'இந்தக் கட்டண அமர்வு ரத்து செய்யப்பட்டது.',
  back: 'கடைக்குத் திரும்பு',
};

export const SANDBOX_MESSAGES: Record<Locale, Messages> = { en, si, ta };
