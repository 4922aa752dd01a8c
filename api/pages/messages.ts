// Every visible string of the hosted checkout pages, in English, Sinhala and Tamil. `{name}`
// placeholders are filled (and escaped) by `say`. The English labels Name, Email, Phone and
// "Save this card" are a contract (DESIGN.md): browser tests find elements by them.
import type { Locale } from '../../domain/locale';
import type { DeclineCode } from '../../processor/port';

const en = {
  pageTitle: 'Checkout: {merchant}',
  testMode: 'Test mode: no money moves.',
  payTo: 'Payment to {merchant}',
  orderSummary: 'Order summary',
  item: 'Item',
  quantity: 'Quantity',
  amount: 'Amount',
  total: 'Total',
  reference: 'Reference',
  yourDetails: 'Your details',
  name: 'Name',
  email: 'Email',
  phone: 'Phone',
  phoneHint: 'Optional: a Sri Lankan number.',
  saveCard: 'Save this card so that {merchant} can charge it for future payments',
  pay: 'Pay {amount}',
  payHint: 'You will enter your card on the card processor\'s secure page.',
  cancel: 'Cancel and return to {merchant}',
  language: 'Language',
  paidTitle: 'Payment received',
  paidText: 'Thank you. {merchant} has received {amount}.',
  paidCard: 'Paid with {scheme} ending {last4}.',
  expiredTitle: 'This checkout has expired',
  expiredText: 'It was open for 30 minutes. Ask {merchant} for a new payment link.',
  notOpenTitle: 'This checkout cannot be paid again',
  notOpenText: 'It is already paid or closed.',
  notFoundTitle: 'Checkout not found',
  processing: 'Your payment is still being confirmed. Refresh this page in a moment.',
  declined: 'The payment did not go through: {reason} You can try again or use another card.',
  card_declined: 'the card was declined by its bank.',
  expired_card: 'the card has expired.',
  insufficient_funds: 'the card has insufficient funds.',
  authentication_failed: '3-D Secure authentication failed.',
  card_number_refused: 'That looks like a card number. Enter your card only on the card processor\'s page. Nothing was stored.',
  details_invalid: 'Please check your details.',
  nameInvalid: 'Enter your name (2 to 80 characters).',
  emailInvalid: 'Enter an email address such as name@example.com.',
  phoneInvalid: 'Enter a Sri Lankan phone number such as 077 123 4567, or leave it empty.',
  unavailable: 'Card payments are not available for this merchant yet.',
  limitReached: '{merchant} cannot take this payment this month.',
};
export type MessageKey = keyof typeof en;
type Messages = Record<MessageKey, string>;

const si: Messages = {
  pageTitle: 'ගෙවීම: {merchant}',
  testMode: 'පරීක්ෂණ ප්‍රකාරය: මුදල් ගෙවෙන්නේ නැත.',
  payTo: '{merchant} වෙත ගෙවීම',
  orderSummary: 'ඇණවුමේ සාරාංශය',
  item: 'අයිතමය',
  quantity: 'ප්‍රමාණය',
  amount: 'මුදල',
  total: 'එකතුව',
  reference: 'යොමුව',
  yourDetails: 'ඔබේ විස්තර',
  name: 'නම',
  email: 'විද්‍යුත් තැපෑල',
  phone: 'දුරකථනය',
  phoneHint: 'අත්‍යවශ්‍ය නැත: ශ්‍රී ලංකා අංකයක්.',
  saveCard: 'ඉදිරි ගෙවීම් සඳහා {merchant} හට අය කළ හැකි වන පරිදි මෙම කාඩ්පත සුරකින්න',
  pay: '{amount} ගෙවන්න',
  payHint: 'ඔබ ඔබේ කාඩ්පත ඇතුළත් කරන්නේ කාඩ් සැකසුම්කරුගේ ආරක්ෂිත පිටුවේ ය.',
  cancel: 'අවලංගු කර {merchant} වෙත ආපසු යන්න',
  language: 'භාෂාව',
  paidTitle: 'ගෙවීම ලැබුණි',
  paidText: 'ස්තූතියි. {merchant} හට {amount} ලැබී ඇත.',
  paidCard: '{scheme} කාඩ්පතින් ගෙවා ඇත, අවසන් අංක {last4}.',
  expiredTitle: 'මෙම ගෙවීමේ කාලය ඉකුත් වී ඇත',
  expiredText: 'එය මිනිත්තු 30ක් විවෘතව තිබුණි. නව ගෙවීම් සබැඳියක් සඳහා {merchant} අමතන්න.',
  notOpenTitle: 'මෙම ගෙවීම නැවත කළ නොහැක',
  notOpenText: 'එය දැනටමත් ගෙවා හෝ වසා ඇත.',
  notFoundTitle: 'ගෙවීම හමු නොවීය',
  processing: 'ඔබේ ගෙවීම තවමත් තහවුරු වෙමින් පවතී. මොහොතකින් මෙම පිටුව නැවුම් කරන්න.',
  declined: 'ගෙවීම සාර්ථක නොවීය: {reason} නැවත උත්සාහ කරන්න හෝ වෙනත් කාඩ්පතක් භාවිත කරන්න.',
  card_declined: 'බැංකුව කාඩ්පත ප්‍රතික්ෂේප කළේය.',
  expired_card: 'කාඩ්පතේ කල් ඉකුත් වී ඇත.',
  insufficient_funds: 'කාඩ්පතේ ප්‍රමාණවත් මුදල් නැත.',
  authentication_failed: '3-D Secure සත්‍යාපනය අසාර්ථක විය.',
  card_number_refused: 'එය කාඩ් අංකයක් ලෙස පෙනේ. ඔබේ කාඩ්පත ඇතුළත් කරන්න කාඩ් සැකසුම්කරුගේ පිටුවේ පමණි. කිසිවක් ගබඩා කළේ නැත.',
  details_invalid: 'කරුණාකර ඔබේ විස්තර පරීක්ෂා කරන්න.',
  nameInvalid: 'ඔබේ නම ඇතුළත් කරන්න (අකුරු 2 සිට 80 දක්වා).',
  emailInvalid: 'name@example.com වැනි විද්‍යුත් තැපැල් ලිපිනයක් ඇතුළත් කරන්න.',
  phoneInvalid: '077 123 4567 වැනි ශ්‍රී ලංකා දුරකථන අංකයක් ඇතුළත් කරන්න, නැතහොත් හිස්ව තබන්න.',
  unavailable: 'මෙම වෙළෙන්දා සඳහා කාඩ් ගෙවීම් තවම නොමැත.',
  limitReached: '{merchant} හට මෙම මාසයේ මෙම ගෙවීම ලබා ගත නොහැක.',
};

const ta: Messages = {
  pageTitle: 'கட்டணம்: {merchant}',
  testMode: 'சோதனை முறை: பணம் நகராது.',
  payTo: '{merchant} க்குக் கட்டணம்',
  orderSummary: 'ஆர்டர் சுருக்கம்',
  item: 'பொருள்',
  quantity: 'அளவு',
  amount: 'தொகை',
  total: 'மொத்தம்',
  reference: 'குறிப்பு',
  yourDetails: 'உங்கள் விவரங்கள்',
  name: 'பெயர்',
  email: 'மின்னஞ்சல்',
  phone: 'தொலைபேசி',
  phoneHint: 'விருப்பத்தேர்வு: இலங்கை எண்.',
  saveCard: 'எதிர்காலக் கட்டணங்களுக்கு {merchant} இந்த அட்டையில் வசூலிக்க இதைச் சேமிக்கவும்',
  pay: '{amount} செலுத்து',
  payHint: 'அட்டை செயலாக்குநரின் பாதுகாப்பான பக்கத்தில் உங்கள் அட்டையை உள்ளிடுவீர்கள்.',
  cancel: 'ரத்து செய்து {merchant} க்குத் திரும்பு',
  language: 'மொழி',
  paidTitle: 'கட்டணம் பெறப்பட்டது',
  paidText: 'நன்றி. {merchant} {amount} பெற்றுள்ளது.',
  paidCard: '{last4} இல் முடியும் {scheme} அட்டையால் செலுத்தப்பட்டது.',
  expiredTitle: 'இந்தக் கட்டணப் பக்கம் காலாவதியாகிவிட்டது',
  expiredText: 'இது 30 நிமிடங்கள் திறந்திருந்தது. புதிய கட்டண இணைப்புக்கு {merchant} ஐக் கேளுங்கள்.',
  notOpenTitle: 'இதை மீண்டும் செலுத்த முடியாது',
  notOpenText: 'இது ஏற்கனவே செலுத்தப்பட்டது அல்லது மூடப்பட்டது.',
  notFoundTitle: 'கட்டணப் பக்கம் கிடைக்கவில்லை',
  processing: 'உங்கள் கட்டணம் இன்னும் உறுதிப்படுத்தப்படுகிறது. சிறிது நேரத்தில் பக்கத்தைப் புதுப்பிக்கவும்.',
  declined: 'கட்டணம் நிறைவேறவில்லை: {reason} மீண்டும் முயலவும் அல்லது வேறு அட்டையைப் பயன்படுத்தவும்.',
  card_declined: 'வங்கி அட்டையை நிராகரித்தது.',
  expired_card: 'அட்டை காலாவதியாகிவிட்டது.',
  insufficient_funds: 'அட்டையில் போதிய நிதி இல்லை.',
  authentication_failed: '3-D Secure அங்கீகாரம் தோல்வியடைந்தது.',
  card_number_refused: 'அது அட்டை எண் போலத் தெரிகிறது. அட்டை செயலாக்குநரின் பக்கத்தில் மட்டுமே உங்கள் அட்டையை உள்ளிடவும். எதுவும் சேமிக்கப்படவில்லை.',
  details_invalid: 'உங்கள் விவரங்களைச் சரிபார்க்கவும்.',
  nameInvalid: 'உங்கள் பெயரை உள்ளிடவும் (2 முதல் 80 எழுத்துகள்).',
  emailInvalid: 'name@example.com போன்ற மின்னஞ்சல் முகவரியை உள்ளிடவும்.',
  phoneInvalid: '077 123 4567 போன்ற இலங்கை தொலைபேசி எண்ணை உள்ளிடவும், அல்லது காலியாக விடவும்.',
  unavailable: 'இந்த வணிகருக்கு அட்டைக் கட்டணங்கள் இன்னும் கிடைக்கவில்லை.',
  limitReached: '{merchant} இந்த மாதம் இந்தக் கட்டணத்தை ஏற்க முடியாது.',
};

export const MESSAGES: Record<Locale, Messages> = { en, si, ta };

export const LANGUAGE_NAMES: Record<Locale, string> = { en: 'English', si: 'සිංහල', ta: 'தமிழ்' };

export function declineKey(code: string | null): DeclineCode {
  return code === 'expired_card' || code === 'insufficient_funds' || code === 'authentication_failed' ? code : 'card_declined';
}

/** The message in the locale, placeholders filled with the given (unescaped) values. */
export function say(locale: Locale, key: MessageKey, values: Record<string, string> = {}): string {
  return MESSAGES[locale][key].replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? `{${name}}`);
}
